import Link from "next/link";
import { notFound } from "next/navigation";
import { replayPage } from "@/lib/server/pages/review";
import { ReplayView } from "@/components/review/replay-view";
import { ReviewNav } from "@/components/review/review-nav";
import { link } from "@/components/review/format";

export const dynamic = "force-dynamic";

/** The room as it was at a seq of a run (`?seq=N`; the run's last when left out) ([RPL1]). */
export default async function ReplayPage({
  params,
  searchParams,
}: {
  params: Promise<{ ws: string; run: string }>;
  searchParams: Promise<{ seq?: string }>;
}) {
  const { ws, run: runId } = await params;
  const d = await replayPage(ws, runId);
  if (!d) notFound();
  const seq = Number((await searchParams).seq);
  return (
    <div className="flex h-dvh flex-col">
      <header className="flex flex-wrap items-center gap-3 px-4 pt-3">
        <ReviewNav ws={ws} here="replay">
          <Link className={link} href={`/w/${ws}/runs/${d.run.id}`}>
            The run
          </Link>
        </ReviewNav>
        <h1 className="text-base font-semibold">
          Replay · {d.names.rooms[d.run.space_id] ? `# ${d.names.rooms[d.run.space_id]}` : "room"}
        </h1>
      </header>
      <ReplayView
        run={d.run}
        events={d.events}
        dir={d.names}
        statusTtlSeconds={d.statusTtlSeconds}
        initialSeq={Number.isInteger(seq) && seq > 0 ? seq : null}
      />
    </div>
  );
}
