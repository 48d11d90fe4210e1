import type { ExportDocument, ImportAnswer } from "@/lib/core/protocol";
import { importRuns, type ImportDeps } from "@/lib/server/review/import";

/**
 * Write a generated history into a workspace through the import, i.e. through the one
 * ingest writer (lib/server/ingest/writer.ts) with each event's actor and time. Runs go in
 * chunks; after the first (which makes the rooms), several chunks at once, so the writer's
 * group commit takes many runs' events per transaction. Seqs interleave across runs as
 * they would live; within a run they keep its order.
 */
export async function seedInto(
  deps: ImportDeps,
  ws: string,
  doc: ExportDocument,
  opts: { chunkRuns?: number; parallel?: number; onProgress?: (runs: number) => void } = {},
): Promise<ImportAnswer> {
  const size = opts.chunkRuns ?? 50;
  const chunks: ExportDocument[] = [];
  for (let i = 0; i < doc.runs.length; i += size) {
    const runs = doc.runs.slice(i, i + size);
    const ids = new Set(runs.map((r) => String(r.run.id)));
    chunks.push({ ...doc, runs, objects: (doc.objects ?? []).filter((o) => ids.has(o.run_id)) });
  }
  const total: ImportAnswer = { runs: [], stored: 0, replayed: 0 };
  const add = (a: Awaited<ReturnType<typeof importRuns>>) => {
    if ("ok" in a) throw new Error(`seeding refused: ${a.problem.code}: ${a.problem.detail}`);
    total.runs.push(...a.runs);
    total.stored += a.stored;
    total.replayed += a.replayed;
    opts.onProgress?.(total.runs.length);
  };
  if (chunks.length) add(await importRuns(deps, ws, chunks[0]));
  let next = 1;
  const worker = async () => {
    while (next < chunks.length) add(await importRuns(deps, ws, chunks[next++]));
  };
  await Promise.all(Array.from({ length: opts.parallel ?? 4 }, worker));
  return total;
}
