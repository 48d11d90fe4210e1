import { rollupsPage } from "@/lib/server/pages/review";
import { ReviewNav } from "@/components/review/review-nav";
import { RollupsView } from "@/components/review/rollups-view";
import { AskRollups } from "@/components/review/ask-rollups";

export const dynamic = "force-dynamic";

/** Rollups of the workspace's runs ([ROL1]), or of their tool calls per tool ([TOOL6]), and time to answer asks ([ASKR6]): drawn by components/review/rollups-view.tsx. */
export default async function RollupsPage({
  params,
  searchParams,
}: {
  params: Promise<{ ws: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { ws } = await params;
  const d = await rollupsPage(ws, await searchParams);
  return (
    <main className="mx-auto max-w-6xl px-6 py-8" data-testid="rollups-page">
      <ReviewNav ws={ws} here="rollups" />
      <h1 className="mt-4 text-xl font-semibold">Rollups</h1>
      <RollupsView ws={ws} d={d} />
      <AskRollups d={d} />
    </main>
  );
}
