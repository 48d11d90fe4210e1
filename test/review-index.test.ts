import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunFilter, type RunListItem } from "../lib/core/protocol";
import { countReviewRuns, listReviewRuns } from "../lib/server/queries/review";
import { seedHistory, type RunFacts } from "../lib/dev/history";
import { seedInto } from "../lib/dev/seed";
import { newWorkspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [REV1] [REV2] The runs list on a seeded history: every filter and search finds exactly
 * the runs the generator's own facts say it must (counted here from the facts, never from
 * the index), pages never repeat or drop a run, and a second import changes nothing [EXP2].
 */
let server: TestServer;
let ws: string;
let facts: RunFacts[];
const mapped = new Map<string, string>();

beforeAll(async () => {
  server = await startTestServer();
  ws = (await newWorkspace(server)).workspace_id;
  const h = seedHistory({ runs: 80, events: 1600, seed: 7 });
  facts = h.facts;
  const svc = server.chips.services;
  const r = await seedInto(svc, ws, h.doc);
  for (const x of r.runs) mapped.set(x.from, x.to);
  await svc.review.settle(ws);
}, 120_000);
afterAll(() => server?.close());

async function all(filter: Record<string, string>): Promise<RunListItem[]> {
  const db = server.chips.services.db;
  const out: RunListItem[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listReviewRuns(
      db,
      ws,
      RunFilter.parse({ ...filter, limit: "7", ...(cursor ? { cursor } : {}) }),
    );
    out.push(...page.runs);
    if (!page.next_cursor) return out;
    cursor = page.next_cursor;
  }
}

const ids = (fs: RunFacts[]) => fs.map((f) => mapped.get(f.id)).sort();

describe("review index", () => {
  it("[REV1] lists every seeded run once, newest first, across cursor pages", async () => {
    const got = await all({});
    expect(got.map((r) => r.id).sort()).toEqual(ids(facts));
    const times = got.map((r) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(await countReviewRuns(server.chips.services.db, ws, RunFilter.parse({}))).toBe(facts.length);
  });

  it("[REV1] each filter finds exactly the runs the generator made that way", async () => {
    const durations = facts
      .map((f) => f.durationMs)
      .filter((d): d is number => d !== null)
      .sort((a, b) => a - b);
    const mid = Math.floor(durations[Math.floor(durations.length / 2)] / 1000);
    const cases: [Record<string, string>, (f: RunFacts) => boolean][] = [
      [{ status: "failed" }, (f) => f.status === "failed"],
      [{ status: "succeeded" }, (f) => f.status === "succeeded"],
      [{ status: "cancelled" }, (f) => f.status === "cancelled"],
      [{ status: "running" }, (f) => f.status === "running"],
      [{ agent: "codex" }, (f) => f.agent === "codex"],
      [{ change_set: "yes" }, (f) => f.hasChangeSet],
      [{ failed_checks: "yes" }, (f) => f.failedChecks > 0],
      [{ min_duration: String(mid) }, (f) => f.durationMs !== null && f.durationMs >= mid * 1000],
      [{ max_duration: String(mid) }, (f) => f.durationMs !== null && f.durationMs <= mid * 1000],
      [{ harness: "HARNESS:nightly-runner" }, (f) => f.harness === "nightly-runner"],
      [
        { from: "2026-09-10", to: "2026-09-20" },
        (f) => f.startedAt.slice(0, 10) >= "2026-09-10" && f.startedAt.slice(0, 10) <= "2026-09-20",
      ],
      [{ review: "unreviewed" }, (f) => ["succeeded", "failed", "cancelled"].includes(f.status)],
    ];
    const harnessId = async (name: string) => {
      const { namesOf } = await import("../lib/server/queries/review");
      return (await namesOf(server.chips.services.db, ws)).harnesses.find((h) => h.name === name)!.id;
    };
    for (const [raw, pred] of cases) {
      const filter = raw.harness?.startsWith("HARNESS:")
        ? { ...raw, harness: await harnessId(raw.harness.slice(8)) }
        : raw;
      const want = facts.filter(pred);
      expect(want.length, `the seed must have runs for ${JSON.stringify(filter)}`).toBeGreaterThan(0);
      expect((await all(filter)).map((r) => r.id).sort(), JSON.stringify(filter)).toEqual(ids(want));
    }
  });

  it("[REV2] full-text search finds folded and non-English words, and a prefix", async () => {
    for (const [q, marker] of [
      ["zurich", "zürich"],
      ["ZÜRICH", "zürich"],
      ["請求書", "請求書"],
      ["счёт", "счёт"],
      ["kaf", "kafka"],
    ] as const) {
      const want = facts.filter((f) => f.markers.includes(marker));
      expect(want.length, marker).toBeGreaterThan(0);
      expect((await all({ q })).map((r) => r.id).sort(), q).toEqual(ids(want));
    }
  });

  it("[EXP2] importing the same history again stores nothing new", async () => {
    const h = seedHistory({ runs: 80, events: 1600, seed: 7 });
    const again = await seedInto(server.chips.services, ws, h.doc);
    expect(again.stored).toBe(0);
    expect(again.replayed).toBeGreaterThan(0);
    expect(await countReviewRuns(server.chips.services.db, ws, RunFilter.parse({}))).toBe(facts.length);
  });
});
