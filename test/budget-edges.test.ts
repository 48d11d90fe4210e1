import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ev,
  newHarness,
  newRoom,
  newWorkspace,
  post,
  readEvents,
  request,
  startRun,
  type Workspace,
} from "./support/api";
import { ack, command } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [BUD3] [DRV1] over random workspaces: several rooms and harnesses, runs that obey pause,
 * obey only some commands or are watch-only, runs paused or finished, budgets of harnesses
 * and of the workspace, and usage reports that cross them. Whatever the mix, no answer is a
 * 5xx, every report of a running run is stored, each running run a crossing reaches gets
 * exactly one system pause (it obeys pause) or one notice (it cannot be paused), and the log
 * has no gap and no duplicate. A small model of the budgets says what each report crosses.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
afterAll(() => server?.close());

const CAPS = [
  undefined,
  [],
  ["steer", "cancel"],
  ["steer"],
  ["pause", "resume"],
  ["steer", "pause", "resume", "cancel"],
];
type Fate = "running" | "paused" | "finished";

const scenario = fc.record({
  rooms: fc.integer({ min: 1, max: 3 }),
  harnesses: fc.integer({ min: 1, max: 3 }),
  runs: fc.array(
    fc.record({
      harness: fc.nat(),
      room: fc.nat(),
      caps: fc.constantFrom(...CAPS),
      fate: fc.constantFrom<Fate>("running", "running", "paused", "finished"),
    }),
    { minLength: 1, maxLength: 7 },
  ),
  // subject: a harness by index, or past the last one the workspace ("*"); limits in tokens and cents.
  budgets: fc.array(
    fc.record({
      subject: fc.nat(),
      tokens: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: null }),
      cents: fc.option(fc.integer({ min: 1, max: 300 }), { nil: null }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  reports: fc.array(
    fc.record({ run: fc.nat(), tokens: fc.integer({ min: 0, max: 1500 }), cents: fc.integer({ min: 0, max: 100 }) }),
    { minLength: 1, maxLength: 8 },
  ),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

interface ModelRun {
  id: string;
  harness: string;
  as: Workspace;
  obeysPause: boolean;
  state: Fate;
  pending: boolean;
  tokens: number;
  cents: number;
}

/** Every answer, to assert none was a 5xx (kept apart so a failure names the request). */
const answers: { what: string; status: number; text: string }[] = [];
const note = <T extends { status: number; text: string }>(what: string, r: T) => {
  answers.push({ what, status: r.status, text: r.text });
  expect(r.status, `${what}: ${r.text}`).toBeLessThan(500);
  return r;
};

async function check(s: Scenario) {
  const ws = await newWorkspace(server);
  const rooms = [ws.space_id];
  for (let i = 1; i < s.rooms; i++) rooms.push((await newRoom(server, ws, `room ${i}`)).space_id);
  const harnesses = [{ harness_id: ws.harness_id, token: ws.token }];
  for (let i = 1; i < s.harnesses; i++) harnesses.push(await newHarness(server, ws, `harness ${i}`));
  const subjects = [...harnesses.map((h) => h.harness_id), "*"];

  const limits = new Map<string, { tokens: number | null; cents: number | null }>();
  for (const b of s.budgets) {
    const subject = subjects[b.subject % subjects.length];
    const l = { tokens: b.tokens ?? (b.cents === null ? 1000 : null), cents: b.cents };
    const body = { tokens_per_month: l.tokens, cost_usd_per_month: l.cents === null ? null : l.cents / 100 };
    const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/budgets/${subject}`, {
      method: "PUT",
      token: ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(note(`budget ${subject}`, r).status).toBe(200);
    limits.set(subject, l);
  }

  const runs: ModelRun[] = [];
  for (const r of s.runs) {
    const h = harnesses[r.harness % harnesses.length];
    const as = { ...ws, token: h.token, harness_id: h.harness_id, space_id: rooms[r.room % rooms.length] };
    const id = await startRun(server, as, r.caps === undefined ? {} : { commands: r.caps });
    const obeysPause = r.caps === undefined || r.caps.includes("pause");
    if (r.fate === "paused" && obeysPause) {
      const p = note("pause", await command(server, as, id, "pause"));
      expect(note("ack", await ack(server, as, id, p.body.command_id, "applied")).status).toBe(201);
    }
    if (r.fate === "finished") {
      const f = await post(server, as.token, ev(as, "run.finished", { run_id: id, outcome: "succeeded" }));
      expect(note("finish", f).status).toBe(201);
    }
    const state = r.fate === "paused" && !obeysPause ? "running" : r.fate;
    runs.push({ id, harness: h.harness_id, as, obeysPause, state, pending: false, tokens: 0, cents: 0 });
  }

  const spent = new Map<string, { tokens: number; cents: number }>();
  const spendOf = (subject: string) =>
    subject === "*"
      ? [...spent.values()].reduce((a, b) => ({ tokens: a.tokens + b.tokens, cents: a.cents + b.cents }), {
          tokens: 0,
          cents: 0,
        })
      : (spent.get(subject) ?? { tokens: 0, cents: 0 });
  const exhausted = (subject: string) => {
    const l = limits.get(subject);
    const sp = spendOf(subject);
    return !!l && ((l.tokens !== null && sp.tokens >= l.tokens) || (l.cents !== null && sp.cents >= l.cents));
  };

  const stored: { seq: number; id: string; expected: string[] }[] = [];
  for (const rep of s.reports) {
    const run = runs[rep.run % runs.length];
    const usage = { input_tokens: run.tokens + rep.tokens, output_tokens: 0, cost_usd: (run.cents + rep.cents) / 100 };
    const e = ev(run.as, "run.status", { run_id: run.id, phase: "working", verb_phrase: "Working…", usage });
    const r = note("report", await post(server, run.as.token, e));
    if (run.state !== "running") {
      expect(r.body.code).toBe(run.state === "paused" ? "run_paused" : "run_finished");
      continue;
    }
    expect(r.status, r.text).toBe(201);
    // [BUD1]–[BUD3] as the writer counts: the growth is added, and a subject it takes past a limit pauses its runs.
    const before = [run.harness, "*"].filter((subject) => !exhausted(subject));
    const had = spent.get(run.harness) ?? { tokens: 0, cents: 0 };
    spent.set(run.harness, { tokens: had.tokens + rep.tokens, cents: had.cents + rep.cents });
    run.tokens += rep.tokens;
    run.cents += rep.cents;
    const reached = new Set<string>();
    const expected: string[] = [];
    for (const subject of before.filter(exhausted))
      for (const other of runs) {
        if (other.state !== "running" || other.pending || reached.has(other.id)) continue;
        if (subject !== "*" && other.harness !== subject) continue;
        reached.add(other.id);
        expected.push(`${other.obeysPause ? "run.command" : "run.notice"} ${other.id}`);
      }
    for (const other of runs) if (reached.has(other.id) && other.obeysPause) other.pending = true;
    stored.push({ seq: r.body.events[0].seq, id: e.id, expected: expected.sort() });
  }

  const log = await readEvents(server, ws, 0, 1000, ws.person_token);
  expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  expect(new Set(log.map((e) => e.id)).size).toBe(log.length);
  for (const [i, rep] of stored.entries()) {
    expect(log[rep.seq - 1].id, "the report is stored at the seq it was answered with").toBe(rep.id);
    // What the report brought with it: the system events right after it, up to the next report.
    const end = i + 1 < stored.length ? stored[i + 1].seq - 1 : log.length;
    const derived = log.slice(rep.seq, end);
    expect(derived.every((e) => e.actor.kind === "system")).toBe(true);
    expect(derived.map((e) => `${e.type} ${e.run_id}`).sort()).toEqual(rep.expected);
    for (const d of derived) {
      if (d.type === "run.command")
        expect(d).toMatchObject({ command: "pause", text: expect.stringMatching(/^budget exhausted: /) });
      else
        expect(d).toMatchObject({
          code: "command_not_supported",
          derived: { type: "run.command", command: "pause" },
          text: expect.stringMatching(
            /^could not pause this run \(budget exhausted: .*\): this run's harness does not take pause/,
          ),
        });
    }
  }
}

describe("[BUD3] [DRV1] budgets running out over random workspaces", () => {
  it("[BUD3] [DRV1] no 5xx, every report stored, each running run reached gets one pause or one notice, the log whole", async () => {
    await fc.assert(fc.asyncProperty(scenario, check), { numRuns: 12 });
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
  }, 120_000);
});
