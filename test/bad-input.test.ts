/**
 * Bad input: a corpus of malformed requests, each answered with its status and stable code
 * (docs/PROTOCOL.md §1, §2, §4 [HTTP1], [HTTP2]); afterwards an ordered logical dump of every
 * table is identical to the one taken before, and the next valid event gets seq = max + 1.
 *
 * The cases live in ./bad-input/, one file per theme, listed in ./bad-input/corpus.ts with
 * the world they run against; the helpers they share in ./bad-input/support.ts.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorld, CASES } from "./bad-input/corpus";
import { lateSocketErrors, server, setServer, type World } from "./bad-input/support";
import { message, post } from "./support/api";
import { dumpDatabase, type Dump } from "./support/dump";
import { startTestServer } from "./support/server";

/**
 * When a token or session was last used is written in the background after a request
 * authenticates (lib/server/credentials.ts), refused or not — it records the attempt, not
 * data the request changed, and its timing relative to the first dump is not ours to fix.
 */
const USE_STAMPS = { credentials: ["last_used_at"], sessions: ["last_used_at"] };

let world: World;
let before: Dump;
let maxSeqBefore: number;

beforeAll(async () => {
  setServer(await startTestServer());
  world = await buildWorld();
  const { A, B } = world;

  const [{ max }] = await server.chips.services.database.query<{ max: number | string | null }>(
    sql`select max(seq) as max from events where workspace_id = ${A.workspace_id}`,
  );
  maxSeqBefore = Number(max);
  // The review index follows the log after commit, on a timer (lib/server/review/indexer.ts):
  // settle it now, or a round for the setup's events may land between the two dumps.
  for (const w of [A, B]) await server.chips.services.review.settle(w.workspace_id);
  before = await dumpDatabase(server.chips.services.database, { omit: USE_STAMPS });
});
afterAll(() => server?.close());

describe("bad input: the state before the corpus", () => {
  it("the dump covers every table, with workspaces.seq_head, and the state is non-trivial", () => {
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining([
        "workspaces",
        "spaces",
        "harnesses",
        "credentials",
        "agents",
        "events",
        "runs",
        "run_events",
      ]),
    );
    expect(maxSeqBefore).toBeGreaterThanOrEqual(9);
    const wsA = before.workspaces.map((r) => JSON.parse(r)).find((r) => r.id === world.A.workspace_id);
    expect(wsA.seq_head).toBe(maxSeqBefore);
    expect(before.agents.map((r) => JSON.parse(r))).toEqual([
      expect.objectContaining({ id: world.agent, harness_id: world.A.harness_id }),
    ]);
  });
});

describe("[HTTP2] bad input: each malformed request gets its status and code", () => {
  it(`the corpus holds at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    it(`${c.rule} ${c.name}`, async () => {
      const r = await c.send(world);
      const context = `${r.status} ${r.headers.get("content-type")} ${r.text.slice(0, 600)}`;
      expect({ status: r.status, code: r.body?.code }, context).toEqual({ status: c.status, code: c.code });
      expect(r.headers.get("content-type") ?? "", context).toMatch(/^application\/problem\+json(;|$)/);
      expect(r.body, context).toEqual(
        expect.objectContaining({
          type: expect.any(String),
          title: expect.any(String),
          status: c.status,
          detail: expect.any(String),
          code: c.code,
        }),
      );
      expect(r.body.type.length, context).toBeGreaterThan(0);
      expect(r.body.title.length, context).toBeGreaterThan(0);
      if (c.code === "validation_failed") {
        expect(Array.isArray(r.body.errors) && r.body.errors.length > 0, context).toBe(true);
        for (const e of r.body.errors)
          expect(e, context).toEqual({ pointer: expect.any(String), message: expect.any(String) });
      }
      if (c.pointer !== undefined) {
        expect(
          (r.body.errors ?? []).map((e: { pointer: string }) => e.pointer),
          context,
        ).toContain(c.pointer);
      }
    });
  }

  it("[HTTP2] a replay of a known key wins over run_finished: 200 with the stored event (ts and seq sent are ignored)", async () => {
    const r = await post(server, world.A.token, { ...world.finishSent, ts: "2000-01-01T00:00:00Z", seq: 999_999 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ events: [world.finishStored] });
  });

  it("connections of their own failed, if at all, only after their answer, and only by the server closing them", () => {
    for (const code of lateSocketErrors) expect(["EPIPE", "ECONNRESET"]).toContain(code);
  });

  it("no request polluted Object.prototype", () => {
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).kind).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

describe("[HTTP1] [ENV8] bad input: afterwards nothing changed", () => {
  it("the ordered logical dump of every table equals the one taken before", async () => {
    const after = await dumpDatabase(server.chips.services.database, { omit: USE_STAMPS });
    expect(Object.keys(after)).toEqual(Object.keys(before));
    // Every table that differs, with the rows it gained and lost: {} when nothing changed.
    const changed: Record<string, { added: string[]; removed: string[] }> = {};
    for (const table of Object.keys(before)) {
      const was = new Set(before[table]);
      const now = new Set(after[table]);
      const added = after[table].filter((r) => !was.has(r));
      const removed = before[table].filter((r) => !now.has(r));
      if (added.length || removed.length) changed[table] = { added, removed };
    }
    expect(changed).toEqual({});
    // And exactly equal, order included.
    expect(after).toEqual(before);
  });

  it("[ENV8] the next valid event gets seq = previous max + 1", async () => {
    const r = await post(server, world.A.token, message(world.A, "after the corpus"));
    expect(r.status, r.text).toBe(201);
    expect(r.body.events).toHaveLength(1);
    expect(r.body.events[0].seq).toBe(maxSeqBefore + 1);
    const [{ seq_head }] = await server.chips.services.database.query<{ seq_head: number | string }>(
      sql`select seq_head from workspaces where id = ${world.A.workspace_id}`,
    );
    expect(Number(seq_head)).toBe(maxSeqBefore + 1);
  });
});
