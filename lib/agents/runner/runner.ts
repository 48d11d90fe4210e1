import fs from "node:fs";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { HARNESS_EVENTS, type RunnerClientToServer, type RunnerServerToClient } from "@/lib/core/protocol";
import { ChipsClient } from "@/lib/agents/sdk";
import { isCommand } from "@/lib/agents/sdk/commands";
import type { Command } from "@/lib/agents/sdk/types";
import {
  StartRequest,
  type LeaseRenewAck,
  type RunnerHello,
  type RunnerHelloAck,
} from "@/lib/core/protocol/runner-contract";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import type { Adapter } from "./adapter";
import { admit } from "./admission";
import type { RunJob } from "./job";
import { makeJob } from "./job-start";
import { Leases } from "./leases";
import { SecretMask } from "./mask";
import { Outbox } from "./outbox";
import { killJobProcesses } from "./process";

export interface RunnerOptions {
  url: string;
  token: string;
  name: string;
  /** The allowlist: repository name (as a start request names it) → local git repository. */
  repositories: Record<string, string>;
  /** Worktrees, job directories and CLI homes live here. */
  workDir: string;
  adapters: Adapter[];
  /** Secrets this runner may give a job that names them ([RN4]); never sent to Chips. */
  secrets?: Record<string, string>;
  capacity?: number;
  cleanup?: "keep" | "remove";
  /** Pin Chips' lease key (PEM) instead of taking it from the hello answer. */
  leasePublicKey?: string;
  stopGraceMs?: { int: number; term: number };
  checkTimeoutMs?: number;
  /** [RN6] How long an `ask` run waits for a person's answer before the call is denied (default the profile's, 300 s). */
  askSeconds?: number;
  log?: (line: string) => void;
}

/**
 * A runner (docs/PROTOCOL.md §5): dials in to `/harness` (no inbound port), says what it can run,
 * takes `runner.start`, refuses what it cannot isolate or authorize ([RN1]), runs the rest
 * as {@link RunJob}s, renews their leases, and hands them their commands.
 */
export class Runner {
  readonly client: ChipsClient;
  readonly mask: SecretMask;
  readonly jobs = new Map<string, RunJob>();
  private socket: Socket<RunnerServerToClient, RunnerClientToServer> | null = null;
  private leaseKey: string | null;
  private runnerId: string | null = null;
  private seenStarts = new Set<string>();
  private seenCommands = new Set<string>();
  private renewTimer: NodeJS.Timeout | null = null;
  private readonly leases = new Leases();
  private log: (line: string) => void;

  constructor(private o: RunnerOptions) {
    this.client = new ChipsClient({ url: o.url, token: o.token });
    this.mask = new SecretMask(o.secrets ?? {});
    this.leaseKey = o.leasePublicKey ?? null;
    this.log = (line) => (o.log ?? console.log)(this.mask.text(line));
  }

  get id() {
    return this.runnerId;
  }

  /** Who we are (the token's runner id), before any socket: enough to handle a start by hand. */
  async identify(): Promise<string> {
    const me = await this.client.whoami();
    if (me.kind !== "runner")
      throw new Error(`this token is a ${me.kind} credential, not a runner's (chips runner token makes one)`);
    this.runnerId = me.id;
    return me.id;
  }

  async hello(): Promise<RunnerHello> {
    const adapters = [];
    for (const a of this.o.adapters) {
      const version = await a.detect();
      if (version)
        adapters.push({
          agent: a.agent,
          profiles: await a.profiles(),
          version,
          models: a.models(),
          providers: a.providers(),
        });
    }
    return {
      v: 1,
      name: this.o.name,
      adapters,
      repositories: Object.keys(this.o.repositories),
      capacity: this.o.capacity ?? 2,
    };
  }

  /** Connect and take work; resolves once Chips answered the hello. */
  async connect(): Promise<void> {
    await this.identify();
    await this.sweepOrphans();
    const hello = await this.hello();
    if (!hello.adapters.length) this.log("[runner] no agent CLI found: this runner advertises no adapters");
    const socket: Socket<RunnerServerToClient, RunnerClientToServer> = io(`${this.o.url}/harness`, {
      path: "/socket.io",
      transports: ["websocket"],
      forceNew: true,
      auth: { token: this.o.token },
    });
    this.socket = socket;
    const first = new Promise<void>((resolve, reject) => {
      socket.on("connect", () => {
        socket.emit(HARNESS_EVENTS.runnerHello, hello, (ack: RunnerHelloAck) => {
          if (!ack.ok) return reject(new Error(`Chips refused the hello: ${ack.error}`));
          this.leaseKey ??= ack.lease_public_key;
          this.log(
            `[runner] ${this.o.name} (${ack.runner_id}) connected: ${hello.adapters.map((a) => `${a.agent} ${a.version}`).join(", ") || "no adapters"}`,
          );
          resolve();
        });
      });
      socket.on("connect_error", (e) => {
        if (!socket.active) reject(new Error(`cannot connect to ${this.o.url}: ${e.message}`));
      });
    });
    socket.on(HARNESS_EVENTS.runnerStart, (raw: unknown, ack?: (a: { ok: true }) => void) => {
      ack?.({ ok: true }); // received; refusals are reported on the run itself
      void this.handleStart(raw);
    });
    socket.on(HARNESS_EVENTS.command, (raw: unknown, ack?: () => void) => {
      if (typeof ack === "function") ack();
      if (isCommand(raw)) void this.handleCommand(raw);
    });
    // Leases are renewed when half their time is left, checked every half second: a renewal that
    // arrives after the expiry fails the run (dispatch.ts), so the ask leaves as much room as it can
    // for a slow round trip — under load a third of a short lease (1 s of 3 s) was not always enough.
    this.renewTimer = setInterval(() => this.renewDue(), 500);
    this.renewTimer.unref();
    return first;
  }

  private renewDue() {
    for (const job of this.jobs.values()) {
      if (job.state === "finished" || !this.socket?.connected) continue;
      const lease = this.leases.due(job.runId);
      if (!lease) continue;
      lease.asking = true;
      this.socket
        .timeout(10_000)
        .emit(HARNESS_EVENTS.leaseRenew, { run_id: job.runId }, (err: Error | null, ack: LeaseRenewAck) => {
          lease.asking = false;
          if (err) return; // not answered: asked again on the next tick
          if (ack.ok) return this.leases.note(job.runId, ack.lease);
          if (ack.error !== "run_finished") void job.abort(`lease not renewed: ${ack.error}`);
        });
    }
  }

  async handleCommand(cmd: Command) {
    if (this.seenCommands.has(cmd.command_id)) return;
    this.seenCommands.add(cmd.command_id);
    const job = this.jobs.get(cmd.run_id!);
    if (!job) {
      await this.client
        .ack(cmd.run_id!, cmd.command_id, "rejected", "this runner has no such job (it may have restarted)")
        .catch(() => {});
      return;
    }
    await job
      .command(cmd)
      .catch((e) => this.log(`[runner] ${cmd.run_id}: ${cmd.command} failed: ${(e as Error).message}`));
  }

  /** A start request: checked ([RN1]) before anything is made or launched. */
  async handleStart(raw: unknown): Promise<RunJob | null> {
    const parsed = StartRequest.safeParse(raw);
    if (!parsed.success) {
      this.log(`[runner] ignored a malformed start request: ${parsed.error.issues[0]?.message}`);
      return null;
    }
    const req = parsed.data;
    if (this.seenStarts.has(req.run_id)) return this.jobs.get(req.run_id) ?? null; // sent again after a reconnect
    this.seenStarts.add(req.run_id);
    const runnerId = this.runnerId ?? (await this.identify());
    const out = new Outbox(this.client, this.o.token, req.run_id, req.space_id, this.mask);
    const actor = { kind: "harness" as const, id: runnerId };
    const refuse = async (reason: string) => {
      this.log(`[runner] refused ${req.run_id}: ${reason}`);
      await out.runnerEvent("failed", reason, { refused: true });
      const summary = clipUtf8(`Refused by the runner: ${reason}`, LIMITS.summary);
      await out.post({ type: "run.finished", outcome: "failed", summary, actor });
      return null;
    };

    const admission = await admit(this.o, req, this.leaseKey, runnerId);
    if (!admission.ok) return refuse(admission.reason);
    const made = await makeJob(this.o, req, admission, out, actor, this.mask, this.log);
    if ("refused" in made) return refuse(made.refused);
    const { job, worktree, baseSha, branch } = made;
    this.jobs.set(req.run_id, job);
    this.leases.note(req.run_id, req.lease);
    void job.done.then(() => {
      this.jobs.delete(req.run_id);
      this.leases.forget(req.run_id);
    });
    const started = await out.post({
      type: "run.started",
      goal: clipUtf8(req.prompt.text, LIMITS.goal), // [LIM1] the prompt may be longer than a goal may be
      goal_from: "chips",
      session_ref: req.worktree_name,
      actor,
    });
    if (!started) {
      await job.abort("Chips refused run.started");
      return null;
    }
    await out.runnerEvent("started", `worktree ${req.worktree_name} at ${baseSha.slice(0, 12)} on ${branch}`, {
      worktree,
      base_sha: baseSha,
      branch,
      agent: req.agent,
      profile: req.profile,
    });
    job.begin();
    return job;
  }

  /**
   * A runner that died (SIGKILL, a crash) could not stop its agents: they outlive it in
   * their own process groups. On start, every process still holding the CHIPS_JOB of a job
   * in this work dir is stopped — their runs failed when the old lease lapsed; their
   * worktrees stay for inspection.
   */
  async sweepOrphans(): Promise<string[]> {
    const jobsDir = path.join(this.o.workDir, "jobs");
    const ids = fs.existsSync(jobsDir)
      ? fs.readdirSync(jobsDir).filter((d) => d.startsWith("run_") && !this.jobs.has(d))
      : [];
    const swept: string[] = [];
    for (const id of ids) {
      const pids = await killJobProcesses(id);
      if (pids.length) {
        swept.push(id);
        this.log(`[runner] stopped ${pids.length} process(es) a previous runner left for ${id}`);
      }
    }
    return swept;
  }

  /** Stop taking work; running jobs are stopped and their evidence kept. */
  async close() {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.socket?.disconnect();
    await Promise.all([...this.jobs.values()].map((j) => j.abort("the runner is shutting down")));
    this.client.close();
  }
}
