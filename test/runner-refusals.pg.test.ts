import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { LeaseClaims, type StartRequest } from "../lib/core/protocol/runner-contract";
import { requestHash, signLease } from "../lib/core/protocol/runner-lease";
import { CodexAdapter } from "../lib/agents/runner/adapters/codex";
import { jobProcesses } from "../lib/agents/runner/process";
import { post, ev } from "./support/api";
import { say } from "./support/model-server";
import { rawRunner } from "./support/raw-runner";
import { runnerWorld, type World } from "./support/runner-world";

/**
 * [RN1] The runner refuses what it cannot isolate or authorize, with a reason, launching
 * nothing. Chips hands a genuine start request to a raw connection of the runner's identity;
 * the real Runner is then given it changed as each case needs (re-signed with the server's
 * real key where the case is "Chips signed something the runner must still refuse").
 */
let world: World | null = null;
let raw: Awaited<ReturnType<typeof rawRunner>> | null = null;
afterEach(async () => {
  raw?.close();
  raw = null;
  await world?.close();
  world = null;
});

async function setup(hello: Record<string, unknown> = {}) {
  world = await runnerWorld({ script: () => ({ items: [say("done")] }), connect: false });
  raw = await rawRunner(world.server.url, world.runnerToken, hello);
  return { w: world, r: raw };
}

const keys = (w: World) => w.server.chips.services.keys;

function resign(w: World, req: StartRequest, patch: Partial<LeaseClaims> = {}): StartRequest {
  const claims = LeaseClaims.parse(JSON.parse(Buffer.from(req.lease.claims, "base64url").toString()));
  return { ...req, lease: signLease(keys(w).leasePrivate, { ...claims, request_sha256: requestHash(req), ...patch }) };
}

/** The refusal: run failed with the reason, a runner.event failed, no worktree, no process, no model call. */
async function expectRefused(w: World, runId: string, reason: RegExp, worktreeName: string) {
  const run = await w.waitRun(runId, (r) => r.state === "finished", "the refused run finishes", 30_000);
  expect(run.outcome).toBe("failed");
  expect(run.summary).toMatch(reason);
  const rev = await w.runnerEvents(runId);
  expect(rev.map((e: any) => e.kind)).toEqual(["failed"]);
  expect(rev[0].payload.refused).toBe(true);
  expect(fs.existsSync(path.join(w.tmp, "work", "worktrees", worktreeName))).toBe(false);
  expect(jobProcesses(runId)).toEqual([]);
  expect(w.model.requests).toEqual([]);
}

describe("[RN1] refusals", { timeout: 180_000 }, () => {
  test("[RN1] a tampered lease (request changed after signing, or a forged signature) is refused, nothing launched", async () => {
    const { w, r } = await setup({ repositories: ["demo", "other"] });
    const runner = w.makeRunner({ leasePublicKey: r.publicKey });
    const a = await w.startRun();
    const changed = { ...(await r.startFor(a)), profile: "read-only" }; // widened or narrowed: still not what Chips signed
    expect(await runner.handleStart(changed)).toBeNull();
    await expectRefused(w, a, /lease refused: the start request was changed after signing/, changed.worktree_name);

    const b = await w.startRun();
    const genuine = await r.startFor(b);
    const sig = Buffer.from(genuine.lease.signature, "base64url");
    sig[0] ^= 0xff;
    expect(
      await runner.handleStart({ ...genuine, lease: { ...genuine.lease, signature: sig.toString("base64url") } }),
    ).toBeNull();
    await expectRefused(w, b, /lease refused: the signature does not verify/, genuine.worktree_name);
  });

  test("[RN1] an expired lease is refused", async () => {
    const { w, r } = await setup();
    const runner = w.makeRunner({ leasePublicKey: r.publicKey });
    const runId = await w.startRun();
    const expired = resign(w, await r.startFor(runId), { expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(await runner.handleStart(expired)).toBeNull();
    await expectRefused(w, runId, /lease refused: it expired at/, expired.worktree_name);
  });

  test("[RN1] a repository off the runner's allowlist is refused (even when Chips signed it)", async () => {
    const { w, r } = await setup({ repositories: ["demo", "elsewhere"] });
    const runner = w.makeRunner({ leasePublicKey: r.publicKey });
    const runId = await w.startRun({ repository: "elsewhere" });
    const req = await r.startFor(runId);
    expect(await runner.handleStart(req)).toBeNull();
    await expectRefused(w, runId, /repository "elsewhere" is not on this runner's allowlist/, req.worktree_name);
  });

  test("[RN1] a profile the adapter cannot enforce is refused", async () => {
    const { w, r } = await setup();
    const runner = w.makeRunner({
      leasePublicKey: r.publicKey,
      adapters: [new CodexAdapter({ ...w.codexConfig, profiles: ["read-only"] })],
    });
    const runId = await w.startRun({ profile: "workspace-write" });
    const req = await r.startFor(runId);
    expect(await runner.handleStart(req)).toBeNull();
    await expectRefused(
      w,
      runId,
      /cannot enforce the "workspace-write" profile \(it enforces: read-only\)/,
      req.worktree_name,
    );
  });

  test("[RN1] [RN5] a provider the runner has not configured is refused (even when Chips signed it)", async () => {
    const { w, r } = await setup({
      adapters: [
        { agent: "codex", profiles: ["read-only", "workspace-write"], version: "raw", providers: ["elsewhere"] },
      ],
    });
    const runner = w.makeRunner({ leasePublicKey: r.publicKey });
    const runId = await w.startRun({ provider: "elsewhere" });
    const req = await r.startFor(runId);
    expect(req.provider).toBe("elsewhere");
    expect(await runner.handleStart(req)).toBeNull();
    await expectRefused(w, runId, /this runner has no codex provider "elsewhere" \(it has: mock\)/, req.worktree_name);
  });

  test("[RN1] a worktree name already in use is refused; the existing worktree is untouched", async () => {
    const { w, r } = await setup();
    const runner = w.makeRunner({ leasePublicKey: r.publicKey });
    const first = await w.startRun();
    const firstReq = await r.startFor(first);
    expect(await runner.handleStart(firstReq)).not.toBeNull();
    const done = await w.waitRun(first, (x) => x.state === "finished", "the first run finishes");
    expect(done.outcome).toBe("succeeded");
    const calls = w.model.requests.length;
    const head = fs.readFileSync(path.join(w.tmp, "work", "worktrees", firstReq.worktree_name, ".git"), "utf8");

    const second = await w.startRun();
    const reused = resign(w, { ...(await r.startFor(second)), worktree_name: firstReq.worktree_name });
    expect(await runner.handleStart(reused)).toBeNull();
    const run = await w.waitRun(second, (x) => x.state === "finished", "refused");
    expect(run.summary).toMatch(/the worktree name ".*" is taken on this runner/);
    expect(w.model.requests.length).toBe(calls);
    expect(jobProcesses(second)).toEqual([]);
    expect(fs.readFileSync(path.join(w.tmp, "work", "worktrees", firstReq.worktree_name, ".git"), "utf8")).toBe(head);
  });

  test("[RN2] a replayed runner event is stored once; the same sequence with another body is refused", async () => {
    const { w, r } = await setup();
    const runner = w.makeRunner({ leasePublicKey: r.publicKey, adapters: [] });
    const runId = await w.startRun();
    await r.startFor(runId);
    const event = ev(
      w.ws,
      "runner.event",
      { run_id: runId, sequence: 1, kind: "log", message: "hello", occurred_at: new Date().toISOString() },
      w.runnerId,
    );
    delete event.idempotency_key;
    const first = await post(w.server, w.runnerToken, event);
    const again = await post(w.server, w.runnerToken, event);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.events[0].seq).toBe(first.body.events[0].seq);
    const other = await post(w.server, w.runnerToken, { ...event, id: ev(w.ws, "x").id, message: "another" });
    expect(other.status).toBe(409);
    expect((await w.runnerEvents(runId)).map((e: any) => [e.sequence, e.message])).toEqual([[1, "hello"]]);
    await runner.close();
  });
});
