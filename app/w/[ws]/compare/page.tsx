import { comparePage } from "@/lib/server/pages/review";
import { CompareView } from "@/components/review/compare-view";
import { Alert } from "@/components/ui/alert";
import { ReviewNav } from "@/components/review/review-nav";

export const dynamic = "force-dynamic";

/** Runs side by side ([CMP1]): `?run=A&run=B…` (or `?run=A,B`), drawn by components/review/compare-view.tsx. */
export default async function ComparePage({
  params,
  searchParams,
}: {
  params: Promise<{ ws: string }>;
  searchParams: Promise<{ run?: string | string[] }>;
}) {
  const { ws } = await params;
  const d = await comparePage(ws, (await searchParams).run);
  return (
    <main className="mx-auto max-w-6xl px-6 py-8">
      <ReviewNav ws={ws} here="compare" />
      <h1 className="mt-3 text-xl font-semibold">Compare runs</h1>
      <Alert className="mt-2 text-sm">
        {d.missing.length > 0 && `Not runs of this workspace: ${d.missing.join(", ")}`}
      </Alert>
      <CompareView ws={ws} d={d} />
    </main>
  );
}
