import Link from "next/link";
import { notFound } from "next/navigation";
import { runPage } from "@/lib/server/pages/review";
import { ReviewNav } from "@/components/review/review-nav";
import { RunRecord } from "@/components/review/run-record-view";
import { ShareLinks } from "@/components/review/share-links";
import { link } from "@/components/review/format";

export const dynamic = "force-dynamic";

/** One run, looked back on (components/review/run-record-view.tsx), with its share links. */
export default async function RunReviewPage({ params }: { params: Promise<{ ws: string; run: string }> }) {
  const { ws, run: runId } = await params;
  const d = await runPage(ws, runId);
  if (!d) notFound();
  const { run, names } = d;
  return (
    <main className="mx-auto max-w-5xl px-6 py-8" data-testid="run-page" data-run-id={run.id}>
      <ReviewNav ws={ws} here="run">
        <Link className={link} href={`/w/${ws}/r/${run.space_id}`}>
          # {names.rooms[run.space_id] ?? "room"}
        </Link>
        <Link className={link} href={`/w/${ws}/runs/${run.id}/replay`} data-testid="run-replay-link">
          Replay
        </Link>
        <a className={link} href={`/api/v1/runs/${run.id}/export?format=json`} download>
          Export (JSON)
        </a>
        <a className={link} href={`/api/v1/runs/${run.id}/export?format=ndjson`} download>
          NDJSON
        </a>
      </ReviewNav>
      <RunRecord {...d} />
      <section aria-labelledby="shares" className="mt-8">
        <h2 id="shares" className="mb-2 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300">
          Share links
        </h2>
        <ShareLinks
          ws={ws}
          runId={run.id}
          shares={d.shares}
          dir={names}
          canShare={d.canAct}
          me={d.me}
          isOwner={d.isOwner}
          drawnAt={d.now}
        />
      </section>
    </main>
  );
}
