import Link from "next/link";
import { runsPage } from "@/lib/server/pages/review";
import { Alert } from "@/components/ui/alert";
import { ReviewNav } from "@/components/review/review-nav";
import { RunsFilters } from "@/components/review/runs-filters";
import { RunsTable } from "@/components/review/runs-table";
import { SavedViews } from "@/components/review/saved-views";
import { link, muted } from "@/components/review/format";
import { COUNT_CAP } from "@/lib/server/queries/review";

export const dynamic = "force-dynamic";

/** Every run of the workspace: filters and search in the URL, newest first, a page at a time ([REV1], [REV2]). */
export default async function RunsPage({
  params,
  searchParams,
}: {
  params: Promise<{ ws: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { ws } = await params;
  const d = await runsPage(ws, await searchParams);
  const next = d.page.next_cursor
    ? `?${d.query ? `${d.query}&` : ""}cursor=${encodeURIComponent(d.page.next_cursor)}`
    : null;
  const exportQuery = d.query ? `&${d.query}` : "";
  return (
    <main className="mx-auto max-w-7xl px-6 py-8">
      <ReviewNav ws={ws} here="runs" />
      <h1 className="mt-3 text-xl font-semibold">Runs</h1>
      <RunsFilters ws={ws} f={d.filter} names={d.names} agents={d.agents} />
      <Alert className="mt-2 text-sm">{d.problem}</Alert>
      <SavedViews ws={ws} views={d.views} query={d.query} />
      <div className="mt-4 flex flex-wrap items-baseline gap-x-4 text-sm">
        <p data-testid="runs-count" data-count={d.count}>
          {d.count > COUNT_CAP ? `${COUNT_CAP.toLocaleString("en-US")}+` : d.count.toLocaleString("en-US")}{" "}
          {d.count === 1 ? "run" : "runs"}
        </p>
        <a className={link} href={`/api/v1/workspaces/${ws}/review/export?format=json${exportQuery}`} download>
          Export these runs (JSON)
        </a>
        <a className={link} href={`/api/v1/workspaces/${ws}/review/export?format=ndjson${exportQuery}`} download>
          NDJSON
        </a>
      </div>
      <RunsTable ws={ws} runs={d.page.runs} names={d.names} />
      <nav aria-label="Pages" className="mt-4 flex gap-4 text-sm">
        {d.filter.cursor && (
          <Link className={link} href={`/w/${ws}/runs${d.query ? `?${d.query}` : ""}`}>
            ← First page
          </Link>
        )}
        {next ? (
          <Link className={link} href={`/w/${ws}/runs${next}`} data-testid="runs-next">
            Next page →
          </Link>
        ) : (
          d.page.runs.length > 0 && <span className={muted}>End of the list.</span>
        )}
      </nav>
    </main>
  );
}
