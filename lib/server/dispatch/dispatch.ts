import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { leases, runs } from "@/db/schema";
import { canonicalId, clipUtf8, isId, LIMITS } from "@/lib/core/protocol";
import { requestHash, signLease } from "@/lib/core/protocol/runner-lease";
import type { LeaseRenewAck, RunnerHello, StartRequest } from "@/lib/core/protocol/runner-contract";
import { appendSystem } from "../commands";
import type { ChipsServices } from "../services";
import type { ServerKeys } from "./keys";
import { log } from "../log";
import { HARNESS_EVENTS } from "@/lib/core/protocol";
import type { ChipsSocket } from "../realtime/wire";
import type { ConnectedRunner, ConnectedRunners } from "./connected";

type RunRow = typeof runs.$inferSelect;

const START_ACK_MS = 10_000;

/**
 * The start request of a queued run: deterministic, so a renewal signs the same request hash.
 * A task's run carries the snapshot its start froze ([TSK3]); any other run §6's defaults, a
 * one-off task named after the run.
 */
function startRequestOf(run: RunRow): Omit<StartRequest, "lease"> {
  const req = run.request!;
  const ulid = run.id.slice("run_".length);
  const t = req.task;
  return {
    v: 1,
    workspace_id: run.workspaceId,
    space_id: run.spaceId,
    run_id: run.id,
    task_id: t?.task_id ?? `tsk_${ulid}`,
    repository: req.repository,
    base_branch: req.base_branch,
    worktree_name: `chips-${ulid.toLowerCase()}`,
    room: t?.room ?? { revision: 0, intent: "", outcome: "" },
    decisions: t?.decisions ?? [],
    write_scope: t?.write_scope ?? ["**"],
    prerequisites: t?.prerequisites ?? [],
    prompt: t?.prompt ?? { text: req.prompt ?? run.goal, version: 1 },
    agent: req.agent as StartRequest["agent"],
    provider: req.provider ?? null,
    model: req.model ?? null,
    instructions: req.instructions ?? "",
    profile: req.profile,
    required_commands: req.required_commands,
    secrets: req.secrets,
  };
}

/**
 * Hands queued runs to connected runners (docs/PROTOCOL.md §5): the first runner on this node
 * whose allowlist and adapters match and that has room. The assignment is a `run.assigned`
 * through the writer, so two nodes (or two kicks) can never hand one run out twice; the
 * start request goes out with a lease the runner renews while the run lives.
 */
export class Dispatcher {
  private chains = new Map<string, Promise<void>>();

  constructor(
    private svc: Pick<ChipsServices, "config" | "db" | "storage" | "writer">,
    private keys: ServerKeys,
    private runners: ConnectedRunners,
  ) {}

  add(socket: ChipsSocket, runnerId: string, workspaceId: string, hello: RunnerHello) {
    this.runners.add({ socket, runnerId, workspaceId, hello });
    void this.resendAssigned(socket, runnerId)
      .then(() => this.kick(workspaceId))
      .catch((e) => this.svc.storage.refuse(e, "resending assigned runs"));
  }

  remove(socketId: string) {
    this.runners.remove(socketId);
  }

  workspaces(): string[] {
    return this.runners.workspaces();
  }

  /** Dispatch a workspace's queued runs; kicks of one workspace run one after another. */
  kick(workspaceId: string): Promise<void> {
    const prev = this.chains.get(workspaceId) ?? Promise.resolve();
    const next = prev.then(() => this.dispatch(workspaceId)).catch((e) => void this.svc.storage.refuse(e, "dispatch"));
    this.chains.set(workspaceId, next);
    void next.finally(() => {
      if (this.chains.get(workspaceId) === next) this.chains.delete(workspaceId);
    });
    return next;
  }

  private async dispatch(workspaceId: string) {
    const mine = this.runners.of(workspaceId);
    if (!mine.length) return;
    const queued = await this.svc.db
      .select()
      .from(runs)
      .where(and(eq(runs.workspaceId, workspaceId), eq(runs.state, "queued"), isNull(runs.harnessId)))
      .orderBy(asc(runs.createdAt))
      .limit(100);
    for (const run of queued) {
      if (!run.request) continue; // queued by other means: not a runner's
      const runner = await this.pick(mine, run);
      if (!runner) continue;
      const assigned = await appendSystem(this.svc, workspaceId, {
        type: "run.assigned",
        run_id: run.id,
        runner_id: runner.runnerId,
        runner_name: clipUtf8(runner.hello.name, LIMITS.name), // [LIM1] a hello's name is counted in characters
      } as never);
      if (!assigned.ok) continue; // taken meanwhile (another node), or cancelled
      await this.svc.db
        .insert(leases)
        .values({ runId: run.id, workspaceId, runnerId: runner.runnerId, expiresAt: this.expiry() })
        .onConflictDoUpdate({ target: leases.runId, set: { runnerId: runner.runnerId, expiresAt: this.expiry() } });
      this.sendStart(runner.socket, { ...run, harnessId: runner.runnerId });
    }
  }

  private async pick(candidates: ConnectedRunner[], run: RunRow): Promise<ConnectedRunner | null> {
    const req = run.request!;
    const fits = candidates.filter(
      (r) =>
        r.socket.connected &&
        r.hello.repositories.includes(req.repository) &&
        // [RN5] a named provider is configuration the runner must hold, like a repository.
        r.hello.adapters.some((a) => a.agent === req.agent && (!req.provider || a.providers.includes(req.provider))),
    );
    let best: { r: ConnectedRunner; load: number } | null = null;
    for (const r of fits) {
      const [{ n }] = await this.svc.db
        .select({ n: sql<number>`count(*)::int` })
        .from(runs)
        .where(and(eq(runs.harnessId, r.runnerId), ne(runs.state, "finished")));
      if (n < r.hello.capacity && (!best || n < best.load)) best = { r, load: n };
    }
    return best?.r ?? null;
  }

  private expiry() {
    return new Date(Date.now() + this.svc.config.leaseTtlSeconds * 1000).toISOString();
  }

  private lease(run: RunRow, runnerId: string, request: Omit<StartRequest, "lease">) {
    return signLease(this.keys.leasePrivate, {
      run_id: run.id,
      runner_id: runnerId,
      request_sha256: requestHash(request),
      issued_at: new Date().toISOString(),
      expires_at: this.expiry(),
    });
  }

  private sendStart(socket: ChipsSocket, run: RunRow) {
    const request = startRequestOf(run);
    const frame: StartRequest = { ...request, lease: this.lease(run, run.harnessId!, request) };
    socket.timeout(START_ACK_MS).emit(HARNESS_EVENTS.runnerStart, frame, (err: Error | null) => {
      if (err)
        log.warn(
          { runnerId: run.harnessId, runId: run.id },
          "runner did not acknowledge a start; it is sent again when the runner reconnects",
        );
    });
  }

  /** A runner (re)connected: the runs handed to it that it has not started yet go out again. */
  private async resendAssigned(socket: ChipsSocket, runnerId: string) {
    const waiting = await this.svc.db
      .select()
      .from(runs)
      .where(and(eq(runs.harnessId, runnerId), eq(runs.state, "queued")));
    for (const run of waiting) {
      await this.svc.db.update(leases).set({ expiresAt: this.expiry() }).where(eq(leases.runId, run.id));
      this.sendStart(socket, run);
    }
  }

  /** `lease.renew`: a runner keeps its lease while the run lives. */
  async renew(runnerId: string, runId: unknown): Promise<LeaseRenewAck> {
    // Sent by the runner's socket, untrusted: what is no run id (NUL included) is asked of no table.
    if (!isId("run", runId)) return { ok: false, error: "run_not_found" };
    const id = canonicalId(runId);
    const [row] = await this.svc.db.select().from(runs).where(eq(runs.id, id)).limit(1);
    const [lease] = await this.svc.db.select().from(leases).where(eq(leases.runId, id)).limit(1);
    if (!row || !lease || lease.runnerId !== runnerId || row.harnessId !== runnerId)
      return { ok: false, error: "not_your_run" };
    if (row.state === "finished") return { ok: false, error: "run_finished" };
    if (Date.parse(lease.expiresAt) <= Date.now()) return { ok: false, error: "lease_lapsed" };
    await this.svc.db.update(leases).set({ expiresAt: this.expiry() }).where(eq(leases.runId, id));
    return { ok: true, lease: this.lease(row, runnerId, startRequestOf(row)) };
  }

  /** Runs whose lease lapsed fail ([RUN1]: "a runner that loses its lease does the same"). */
  async reap() {
    const lapsed = await this.svc.db
      .select({ runId: leases.runId, workspaceId: leases.workspaceId, expiresAt: leases.expiresAt })
      .from(leases)
      .innerJoin(runs, eq(runs.id, leases.runId))
      .where(and(ne(runs.state, "finished"), sql`${leases.expiresAt} < now()`));
    for (const l of lapsed) {
      const r = await appendSystem(this.svc, l.workspaceId, {
        type: "run.finished",
        run_id: l.runId,
        outcome: "failed",
        summary: `runner lost: its lease lapsed at ${new Date(l.expiresAt).toISOString()}`,
      } as never);
      if (!r.ok && r.problem.code !== "run_finished")
        log.warn({ runId: l.runId, problem: r.problem }, "could not fail a run whose lease lapsed");
    }
  }
}
