import type { IncomingEvent, StoredEvent } from "@/lib/protocol";
import type { runs } from "@/db/schema";
import type { PlanStepModel } from "@/db/run-json";

export type RunModel = typeof runs.$inferSelect;
export type RunState = "queued" | "running" | "paused" | "finished";

type Of<T extends IncomingEvent["type"]> = StoredEvent & Extract<IncomingEvent, { type: T }>;

/**
 * The runs read model: how one stored event changes its run. Pure, so the writer can
 * apply a batch in memory, roll back a refused request, and write the result once.
 */
export function projectRun(run: RunModel | null, e: StoredEvent, harnessId: string | null): RunModel | null {
  switch (e.type) {
    case "run.started":
      return startRun(run, e as Of<"run.started">, harnessId);
    case "run.status": {
      const s = e as Of<"run.status">;
      return touch(run!, e, {
        status: {
          phase: s.phase,
          verb_phrase: s.verb_phrase,
          ...(s.progress !== undefined ? { progress: s.progress } : {}),
          ...(s.estimate_seconds !== undefined ? { estimate_seconds: s.estimate_seconds } : {}),
          ts: e.ts,
          seq: e.seq,
          actor: e.actor,
        },
        ...(s.usage ? { usage: s.usage } : {}),
      });
    }
    case "run.step":
      return touch(run!, e, { plan: applyStep(run!.plan, e as Of<"run.step">) });
    case "run.finished": {
      const f = e as Of<"run.finished">;
      return touch(run!, e, {
        state: "finished",
        pending: null,
        outcome: f.outcome,
        summary: f.summary ?? null,
        finishedAt: e.ts,
        ...(f.usage ? { usage: f.usage } : {}),
        plan: run!.plan.map((s) => (s.state === "active" ? { ...s, state: f.outcome === "succeeded" ? "done" : "failed", finished_at: e.ts } : s)),
      });
    }
    case "run.queued":
      return queueRun(e as Of<"run.queued">);
    case "run.assigned": {
      const a = e as Of<"run.assigned">;
      return touch(run!, e, { harnessId: a.runner_id, runner: { id: a.runner_id, name: a.runner_name } });
    }
    case "runner.event":
      return run ? touch(run, e, runnerPatch(e as Of<"runner.event">)) : run;
    case "run.command":
    case "run.command_delivered":
    case "run.command_acked":
      return run ? touch(run, e, {}) : run;
    case "message.posted":
    case "room.updated":
    case "decision.recorded":
    case "task.saved":
      return run;
  }
}

/** What a runner event says about its run: the newest checkpoint, change-set, failure, log line. */
function runnerPatch(e: Of<"runner.event">): Partial<RunModel> {
  switch (e.kind) {
    case "checkpoint":
      return { checkpoint: e.payload ?? null };
    case "change-set":
      return { changeSet: e.payload ?? null };
    case "failed":
      return { runnerError: e.message };
    case "log":
      return { lastLog: e.message };
    case "started":
    case "completed":
      return {};
  }
}

/** A run a person started through Chips: queued until a runner takes it. */
function queueRun(e: Of<"run.queued">): RunModel {
  return {
    id: e.run_id!,
    workspaceId: e.workspace_id,
    spaceId: e.space_id!,
    harnessId: null,
    actor: e.actor,
    state: "queued",
    pending: null,
    goal: e.goal,
    goalFrom: e.goal_from ?? null,
    sessionRef: null,
    plan: [],
    status: null,
    usage: null,
    outcome: null,
    summary: null,
    startedSeq: null,
    lastSeq: e.seq,
    createdAt: e.ts,
    startedAt: null,
    updatedAt: e.ts,
    finishedAt: null,
    request: e.request,
    runner: null,
    checkpoint: null,
    changeSet: null,
    runnerError: null,
    lastLog: null,
  };
}

function touch(run: RunModel, e: StoredEvent, patch: Partial<RunModel>): RunModel {
  return { ...run, ...patch, lastSeq: e.seq, updatedAt: e.ts };
}

function startRun(run: RunModel | null, e: Of<"run.started">, harnessId: string | null): RunModel {
  const plan: PlanStepModel[] = (e.plan ?? []).map((p) => ({ step_id: p.step_id, title: p.title, state: "pending" }));
  const started = {
    harnessId,
    actor: e.actor,
    state: "running",
    goal: e.goal,
    goalFrom: e.goal_from ?? null,
    sessionRef: e.session_ref ?? null,
    plan,
    startedSeq: e.seq,
    startedAt: e.ts,
    lastSeq: e.seq,
    updatedAt: e.ts,
  } satisfies Partial<RunModel>;
  if (run) return { ...run, ...started }; // a queued run taken by its harness
  return {
    id: e.run_id!,
    workspaceId: e.workspace_id,
    spaceId: e.space_id!,
    pending: null,
    status: null,
    usage: null,
    outcome: null,
    summary: null,
    createdAt: e.ts,
    finishedAt: null,
    request: null,
    runner: null,
    checkpoint: null,
    changeSet: null,
    runnerError: null,
    lastLog: null,
    ...started,
  };
}

function applyStep(plan: PlanStepModel[], e: Of<"run.step">): PlanStepModel[] {
  const at = plan.findIndex((s) => s.step_id === e.step_id);
  const prev: PlanStepModel = at >= 0 ? plan[at] : { step_id: e.step_id, title: e.title!, state: "pending", added: true };
  const next: PlanStepModel = {
    ...prev,
    title: e.title ?? prev.title,
    state: e.state,
    updated_seq: e.seq,
    ...(e.note !== undefined ? { note: e.note } : {}),
    ...(e.state === "active" && !prev.started_at ? { started_at: e.ts } : {}),
    ...(e.state !== "active" ? { finished_at: e.ts } : {}),
  };
  return at >= 0 ? plan.map((s, i) => (i === at ? next : s)) : [...plan, next];
}
