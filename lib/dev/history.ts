import { createHash } from "node:crypto";
import type { ExportDocument } from "@/lib/core/protocol";
import type { RunFacts } from "./run-facts";
import { RunWriter } from "./run-writer";
import { rng } from "./rng";
import { PEOPLE, ROOMS } from "./words";

/**
 * A realistic history of runs, made from a seed number alone (`npm run seed`, the e2e's
 * seeded history, the review bench): several harnesses, runners and agents; plans with
 * steps done, skipped, added late, taken out of order or left open; statuses with progress,
 * estimates and usage; people's commands and the harness's receipts; failures; change-sets
 * with checks and diffs; text in several languages. It is an export document
 * (lib/core/protocol/review.ts), so it goes in through the same import and writer as any other.
 *
 * Each run also comes with the facts the generator chose for it, so a test can count what
 * a filter or a search must find without asking the code under test.
 */

export interface SeedOptions {
  runs: number;
  /** About how many events in all (at least a run's minimum each). */
  events: number;
  seed: number;
  /** The first run's start; runs spread over `days` after it. */
  start?: string;
  days?: number;
  /**
   * Seed of the cast (workspace, rooms, people, harnesses, agents) when it is not `seed`:
   * histories made in chunks with different seeds and one cast are one history (the review
   * bench seeds that way, so it can stop when its time is up).
   */
  cast?: number;
}

export type { RunFacts };

export interface SeedHistory {
  doc: ExportDocument;
  facts: RunFacts[];
}

const HARNESSES = [
  { name: "codex-cli", kind: "harness" },
  { name: "claude-code", kind: "harness" },
  { name: "nightly-runner", kind: "runner" },
  { name: "gpu-runner", kind: "runner" },
] as const;

/** The history for these options: the same options, the same history, byte for byte. */
export function seedHistory(o: SeedOptions): SeedHistory {
  const r = rng(o.seed);
  const id = idMaker(o.seed);
  const castId = o.cast === undefined ? id : idMaker(o.cast, "cast");
  const ws = castId("ws");
  const rooms = ROOMS.map((name) => ({ id: castId("spc"), name }));
  const people = PEOPLE.map((name) => ({ id: castId("usr"), name }));
  const harnesses = HARNESSES.map((h) => ({ ...h, id: castId(h.kind === "runner" ? "rnr" : "hrn") }));
  // An agent speaks for one harness only ([ENV11]).
  const agents = new Map(harnesses.map((h) => [h.id, castId("agt")]));
  const start = Date.parse(o.start ?? "2026-09-01T08:00:00.000Z");
  const spanMs = (o.days ?? 60) * 86_400_000;
  const perRun = Math.max(8, Math.round(o.events / Math.max(1, o.runs)));

  let seq = 0;
  const runs: ExportDocument["runs"] = [];
  const facts: RunFacts[] = [];
  const objects: NonNullable<ExportDocument["objects"]> = [];
  for (let i = 0; i < o.runs; i++) {
    const at = start + Math.floor((spanMs * i) / Math.max(1, o.runs)) + r.int(0, 3_600_000);
    // The newest runs are still going: every other one running, the rest waiting for a runner.
    const live =
      o.runs - i <= Math.max(2, Math.floor(o.runs / 25))
        ? (o.runs - i) % 2
          ? ("running" as const)
          : ("queued" as const)
        : null;
    const g = new RunWriter(r, id, ws, at, () => ++seq);
    const harness = r.pick(harnesses);
    const f = g.write({
      room: r.pick(rooms),
      harness,
      agent: r.chance(0.3) ? agents.get(harness.id)! : null,
      person: r.pick(people),
      target: perRun + r.int(-Math.floor(perRun / 4), Math.floor(perRun / 4)),
      live,
    });
    runs.push({ run: { id: f.id }, events: g.events });
    objects.push(...g.objects);
    facts.push(f);
  }
  return {
    doc: {
      chips_export: 1,
      exported_at: new Date(start + spanMs).toISOString(),
      workspace_id: ws,
      directory: {
        persons: Object.fromEntries(people.map((p) => [p.id, p.name])),
        harnesses: Object.fromEntries(harnesses.map((h) => [h.id, { name: h.name, kind: h.kind }])),
        rooms: Object.fromEntries(rooms.map((x) => [x.id, x.name])),
      },
      runs,
      objects,
    },
    facts,
  };
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Ids shaped like ours, from the seed and a counter. */
function idMaker(seed: number, space = "") {
  let n = 0;
  return (prefix: string) => {
    const d = createHash("sha256").update(`${space}${seed}:${++n}`).digest();
    let out = CROCKFORD[d[0] & 7];
    for (let i = 1; i < 26; i++) out += CROCKFORD[d[i] & 31];
    return `${prefix}_${out}`;
  };
}
