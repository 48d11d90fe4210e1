import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningChips } from "../lib/server/start";
import { CoalescedNotify } from "../lib/server/notify";
import { HeadsSweep } from "../lib/server/realtime/heads-sweep";
import { message, newWorkspace, post, readEvents, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { freshDatabase, nodeOn } from "./support/server";

/**
 * [SCL4] (docs/OPERATIONS.md): a node tells the others of its commits by a NOTIFY sent after
 * each commit, not inside it. Two nodes on one PostgreSQL, in this process so the test can
 * lose one of A's notices — as when A dies between its commit and its notice.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let a: RunningChips;
let b: RunningChips;

beforeAll(async () => {
  db = await freshDatabase();
  a = await nodeOn(db, "a", { headsSweepSeconds: 0 });
  b = await nodeOn(db, "b", { headsSweepSeconds: 1 });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await db?.drop();
});

async function workspace(): Promise<Workspace> {
  return newWorkspace({ url: a.url, adminToken: fs.readFileSync(a.boot.adminTokenFile, "utf8").trim() } as never);
}

/** A message posted to A whose notice is lost — as when A dies between its commit and its notice. */
async function postUnheard(ws: Workspace, text: string) {
  const send = vi.spyOn(a.services.nodeNotices!, "send").mockImplementationOnce(async () => {});
  expect((await post({ url: a.url }, ws.token, message(ws, text))).status).toBe(201);
  expect(send).toHaveBeenCalledTimes(1);
  send.mockRestore();
}

/**
 * In B's room with nothing in it yet: an unheard commit (`then` runs once it is stored) reaches
 * B, and the next commit, heard, follows it — in order, once.
 */
async function unheardReachesB(ws: Workspace, onB: ReturnType<typeof recordingFeed>, text: string, then = () => {}) {
  await postUnheard(ws, text);
  then();
  await until(
    () => onB.seqs.length === 1,
    () => `the unheard commit on B by the sweep; B has ${onB.seqs}`,
  );
  expect((await post({ url: a.url }, ws.token, message(ws, "heard"))).status).toBe(201);
  await until(
    () => onB.seqs.length === 2,
    () => `the next event on B; B has ${onB.seqs}`,
  );
  expect(onB.seqs).toEqual([1, 2]);
  expect(onB.events.map((e) => (e as { text?: string }).text)).toEqual([text, "heard"]);
  onB.feed.stop();
}

describe("[SCL4] commit notices", () => {
  it("[SCL4] a commit whose notice never came reaches the other node's room by its sweep of heads, in order and once", async () => {
    const ws = await workspace();
    const onB = recordingFeed(b.url, ws.space_id, { token: ws.person_token });
    await until(() => onB.statuses.includes("live"), "the room live on B");
    expect((await post({ url: a.url }, ws.token, message(ws, "heard"))).status).toBe(201);
    await until(() => onB.seqs.length === 1, "the first event on B, by its notice");

    await postUnheard(ws, "unheard");

    await until(
      () => onB.seqs.length === 2,
      () => `the unheard commit on B by the sweep; B has ${onB.seqs}`,
    );
    expect((await post({ url: a.url }, ws.token, message(ws, "heard again"))).status).toBe(201);
    const stored = (await readEvents({ url: a.url }, ws)).map((e) => e.seq);
    await until(
      () => onB.seqs.length === stored.length,
      () => `every event on B; B has ${onB.seqs}`,
    );
    expect(onB.seqs).toEqual(stored);
    expect(onB.events.map((e) => (e as { text?: string }).text)).toEqual(["heard", "unheard", "heard again"]);
    onB.feed.stop();
  }, 15_000);

  it("[SCL4] a room on B with nothing fanned out yet: a commit whose notice never came, after B's sweep saw the room, reaches it by the next sweep", async () => {
    const ws = await workspace();
    const onB = recordingFeed(b.url, ws.space_id, { token: ws.person_token });
    await until(() => onB.statuses.includes("live"), "the room live on B");
    // A sweep of B's has run since the join: the workspace in use, nothing fanned out, its mark kept.
    const sweeps = vi.spyOn(HeadsSweep.prototype, "sweep");
    try {
      await until(() => sweeps.mock.calls.length > 0 && b.services.idle.held().sweepMarks === 1, "a sweep on B");
      await unheardReachesB(ws, onB, "unheard, first");
    } finally {
      sweeps.mockRestore();
    }
  }, 15_000);

  it("[SCL4] a room on B with nothing fanned out yet: a commit whose notice never came, before any sweep saw the room, reaches it by B's first sweep", async () => {
    const ws = await workspace();
    // No sweep of B's runs until the commit is stored: the only mark is the one the join gave.
    const held = vi.spyOn(HeadsSweep.prototype, "sweep").mockImplementation(async () => {});
    try {
      const onB = recordingFeed(b.url, ws.space_id, { token: ws.person_token });
      await until(() => onB.statuses.includes("live"), "the room live on B");
      await unheardReachesB(ws, onB, "unheard, before any sweep", () => held.mockRestore());
    } finally {
      held.mockRestore();
    }
  }, 15_000);

  it("[SCL4] payloads given in one event-loop turn go out in one statement, heard in the order given", async () => {
    const database = a.services.database;
    const heard: string[] = [];
    const listening = await database.listen!(
      "chips_test_notices",
      (p) => heard.push(p),
      () => {},
    );
    const notices = new CoalescedNotify(database, "chips_test_notices");
    const statements = vi.spyOn(database, "run");
    const notifying = () => statements.mock.calls.filter(([text]) => text.includes("pg_notify")).length;
    const sent = ["one", "two", "three", "four", "five"].map((p) => notices.send(p));
    await Promise.all(sent);
    expect(notifying()).toBe(1);
    statements.mockRestore();
    await notices.send("six"); // a later turn: its own statement, after the first
    await until(
      () => heard.length === 6,
      () => `six notices heard; heard ${heard}`,
    );
    expect(heard).toEqual(["one", "two", "three", "four", "five", "six"]);
    await listening.unlisten();
  });
});
