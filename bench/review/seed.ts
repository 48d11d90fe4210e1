import type { ChipsServices } from "@/lib/server/services";
import { seedHistory } from "@/lib/dev/history";
import { seedInto } from "@/lib/dev/seed";

/** One history (one cast: rooms, people, harnesses, agents) seeded chunk by chunk. */
const CAST = 1;
const START = Date.parse("2026-09-01T08:00:00.000Z");
const DAYS = 60;

export interface Seeded {
  runs: number;
  events: number;
  /** Seeding through the writer, then bringing the review index up to date. */
  writeMs: number;
  indexMs: number;
  /** Whether the time budget stopped the seeding short of what was asked. */
  cut: boolean;
  /** The first and last day seeded (UTC), for the date-range filter. */
  firstDay: string;
  lastDay: string;
}

/**
 * `runs` runs with about `events` events in all, written as `npm run seed` writes them —
 * lib/dev's history through the import, i.e. the one ingest writer — in chunks of
 * `chunkRuns` runs (each a slice of the 60 days, seeds 2, 3, …), stopping before a chunk
 * that the time budget would not fit (judged by the slowest chunk so far). Then settles the
 * review index and reports the time of each part.
 */
export async function seedBig(
  svc: ChipsServices,
  ws: string,
  o: { runs: number; events: number; chunkRuns: number; budgetMs: number; log: (s: string) => void },
): Promise<Seeded> {
  const chunks = Math.ceil(o.runs / o.chunkRuns);
  // The generator writes fewer events than asked at this density (~86%): each chunk asks for
  // what is still missing, scaled by what the chunks so far gave per event asked.
  let asked = 0;
  const t0 = performance.now();
  let runs = 0;
  let events = 0;
  let slowest = 0;
  let cut = false;
  for (let k = 0; k < chunks; k++) {
    const elapsed = performance.now() - t0;
    if (k > 0 && elapsed + slowest > o.budgetMs) {
      cut = true;
      o.log(
        `  time budget (${Math.round(o.budgetMs / 60000)} min) reached after ${k} of ${chunks} chunks: stopping at ${runs} runs, ${events} events`,
      );
      break;
    }
    const c0 = performance.now();
    const chunkRuns = Math.min(o.chunkRuns, o.runs - runs);
    const want = (o.events - events) / (chunks - k);
    const ask = Math.round(asked && events ? want * (asked / events) : want);
    asked += ask;
    const h = seedHistory({
      runs: chunkRuns,
      events: ask,
      seed: 2 + k,
      cast: CAST,
      start: new Date(START + (k * DAYS * 86_400_000) / chunks).toISOString(),
      days: DAYS / chunks,
    });
    const r = await seedInto(svc, ws, h.doc, { parallel: 16 });
    runs += r.runs.length;
    events += r.stored;
    const ms = performance.now() - c0;
    slowest = Math.max(slowest, ms);
    const total = performance.now() - t0;
    o.log(
      `  chunk ${k + 1}/${chunks}: ${r.runs.length} runs, ${r.stored} events in ${(ms / 1000).toFixed(1)} s (${Math.round(r.stored / (ms / 1000))} events/s); so far ${runs} runs, ${events} events, ${Math.round(events / (total / 1000))} events/s`,
    );
  }
  const writeMs = performance.now() - t0;
  const t1 = performance.now();
  await svc.review.settle(ws);
  const indexMs = performance.now() - t1;
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const seededChunks = Math.ceil(runs / o.chunkRuns);
  return {
    runs,
    events,
    writeMs,
    indexMs,
    cut,
    firstDay: day(START),
    lastDay: day(START + (seededChunks * DAYS * 86_400_000) / chunks),
  };
}

/** One run of about `events` events (of three, the first is finished; the others stay live), through the writer too. */
export async function seedLongRun(
  svc: ChipsServices,
  ws: string,
  events: number,
): Promise<{ runId: string; events: number; ms: number }> {
  const t0 = performance.now();
  const h = seedHistory({
    runs: 3,
    events: events * 3,
    seed: 1,
    cast: CAST,
    start: new Date(START).toISOString(),
    days: 1,
  });
  const r = await seedInto(svc, ws, {
    ...h.doc,
    runs: h.doc.runs.slice(0, 1),
    objects: (h.doc.objects ?? []).filter((x) => x.run_id === String(h.doc.runs[0].run.id)),
  });
  return { runId: r.runs[0].to, events: r.stored, ms: performance.now() - t0 };
}
