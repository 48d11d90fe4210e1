import fs from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningChips } from "../lib/server/start";
import { message, newWorkspace, post, startRun, type Workspace } from "./support/api";
import { answer, ask, question, readAsk } from "./support/asks";
import { recordingFeed, until } from "./support/feed";
import { freshDatabase, nodeOn } from "./support/server";

/**
 * [SCL3] (docs/OPERATIONS.md): two nodes on one PostgreSQL, as behind a round-robin balancer.
 * A harness with no socket anywhere asks and long-polls its ask on node B; a person's answer
 * goes to node A. The nodes run in this process so the test can see B's long-poll registered
 * (`askWaits.holds`) before A takes the answer — else the poll's own read could find it.
 * Each poll waits up to 30 s (the most `wait` takes) and each test times out at 15 s: a poll
 * that answers with the answer returned on the answer, not on its wait running out.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let a: RunningChips;
let b: RunningChips;

async function workspace(): Promise<Workspace> {
  return newWorkspace({ url: a.url, adminToken: fs.readFileSync(a.boot.adminTokenFile, "utf8").trim() } as never);
}

/** A run and a waiting question on it, posted by the harness to node B. */
async function askedOnB(ws: Workspace) {
  const runId = await startRun({ url: b.url }, ws);
  const askId = await ask({ url: b.url }, ws, question(ws, runId));
  return { runId, askId };
}

beforeAll(async () => {
  db = await freshDatabase();
  // B lets go of a quiet workspace after a second ([SCL1]); A keeps the default.
  a = await nodeOn(db, "a", { workspaceIdleSeconds: 300 });
  b = await nodeOn(db, "b", { workspaceIdleSeconds: 1 });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await db?.drop();
});

describe("[SCL3] an ask long-polled on one node, answered on another", () => {
  it("[ASK4] [SCL3] a harness's long-poll on node B (no socket anywhere) answers with the answer a member gave on node A", async () => {
    const ws = await workspace();
    const { runId, askId } = await askedOnB(ws);
    const poll = readAsk({ url: b.url }, ws.token, runId, askId, 30);
    await until(() => b.services.askWaits.holds(ws.workspace_id), "the long-poll waiting on B");
    const given = await answer({ url: a.url }, runId, askId, { option_id: "pg" }, { token: ws.person_token });
    expect(given.status, given.text).toBe(201);
    const got = await poll;
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({
      ask_id: askId,
      state: "answered",
      answer: { option_id: "pg", seq: given.body.seq },
    });
    expect(b.services.askWaits.holds(ws.workspace_id)).toBe(false);
  }, 15_000);

  it("[SCL1] [SCL3] a workspace with a long-poll waiting is not idle on its node; once the poll has its answer it is let go", async () => {
    const held = () => b.services.idle.held();
    const ws = await workspace();
    const { runId, askId } = await askedOnB(ws);
    const poll = readAsk({ url: b.url }, ws.token, runId, askId, 30);
    await until(() => b.services.askWaits.holds(ws.workspace_id), "the long-poll waiting on B");
    // The clock: a commit on B, after the ask, in a workspace whose room is open on B (so its
    // fan-out state stays). Once its writer heads are gone, a sweep has passed the quiet
    // period of every commit before it — the ask's fan-out too.
    const other = await workspace();
    const room = recordingFeed(b.url, other.space_id, { token: other.person_token });
    await until(() => room.statuses.includes("live"), "the other room live on B");
    expect((await post({ url: b.url }, other.token, message(other, "later, elsewhere"))).status).toBe(201);
    await until(
      () => held().writerHeads === 0,
      () => `B's writer heads let go; still ${JSON.stringify(held())}`,
    );
    expect(held().hubHeads).toBe(2); // the open room's workspace, and the polled one for its waiter
    const given = await answer({ url: a.url }, runId, askId, { option_id: "lite" }, { token: ws.person_token });
    expect(given.status, given.text).toBe(201);
    expect((await poll).body).toMatchObject({ state: "answered", answer: { option_id: "lite" } });
    await until(
      () => held().hubHeads === 1,
      () => `B lets go of the polled workspace; still ${JSON.stringify(held())}`,
    );
    room.feed.stop();
  }, 15_000);

  it("[SCL3] when node B's LISTEN connection is lost, a long-poll waiting there reads its ask again (what moved meanwhile was not heard)", async () => {
    const ws = await workspace();
    const { runId, askId } = await askedOnB(ws);
    const poll = readAsk({ url: b.url }, ws.token, runId, askId, 30);
    await until(() => b.services.askWaits.holds(ws.workspace_id), "the long-poll waiting on B");
    // Every node's listening connection is cut; each reconnects by itself.
    const cut = await a.services.database.query<{ pid: number }>(
      sql`select pg_terminate_backend(pid) as pid from pg_stat_activity where query ilike 'listen %' and pid <> pg_backend_pid()`,
    );
    expect(cut.length).toBeGreaterThan(0);
    // Nothing was answered: the poll comes back still waiting — and the harness polls again.
    const got = await poll;
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ ask_id: askId, state: "asked" });
    expect(b.services.askWaits.holds(ws.workspace_id)).toBe(false);
  }, 15_000);
});
