import { notFound } from "next/navigation";
import { sharedPage } from "@/lib/server/pages/share";
import { RunRecord } from "@/components/review/run-record-view";
import { when } from "@/components/review/format";
import { runLogOf } from "@/lib/core/review/run-log";

export const dynamic = "force-dynamic";

/**
 * A share link's view of one run ([SHR1]): no session, read-only, said to be shared. An
 * unknown, revoked or expired link is a plain 404 (which of them is not told).
 */
export default async function SharedRunPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const token = (await searchParams).token;
  const d = typeof token === "string" ? await sharedPage(token) : null;
  if (!d) notFound();
  const range =
    d.share.from_seq !== null || d.share.to_seq !== null
      ? ` It shows seqs ${d.share.from_seq ?? "from the start"} to ${d.share.to_seq ?? "the end"} of the run.`
      : "";
  return (
    <main className="mx-auto max-w-5xl px-6 py-8" data-testid="shared-run" data-run-id={d.run.id}>
      <p
        role="note"
        data-testid="shared-banner"
        className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
      >
        A shared view: read-only, until {when(d.share.expires_at)} UTC.{range}
      </p>
      <RunRecord
        run={d.run}
        log={{ ...runLogOf(d.events, d.receipts, Number.POSITIVE_INFINITY), asks: d.asks }}
        receipts={d.receipts}
        names={d.names}
        now={d.now}
        canAct={false}
        shared
      />
    </main>
  );
}
