import type { ExportDocument } from "@/lib/core/protocol";
import { seedChangeSet } from "./change-set";
import type { RunFacts } from "./run-facts";
import type { Rng } from "./rng";
import { DONE, FAILED, GOALS, MARKERS, MESSAGES, REJECTIONS, STATUS, STEER, STEPS, type Marker } from "./words";

/**
 * One run of a seeded history (history.ts): its events as a harness, a runner, Chips and
 * people would have sent them, and the facts the generator chose for it.
 */
type Person = { id: string; name: string };
type HarnessRef = { id: string; name: string; kind: "harness" | "runner" };
type Event = ExportDocument["runs"][number]["events"][number];

interface RunPlan {
  room: { id: string; name: string };
  harness: HarnessRef;
  agent: string | null;
  person: Person;
  target: number;
  live: "running" | "queued" | null;
}

/** Writes one run's events as a harness, a runner, Chips and people would have sent them, legal under [RUN1]. */
export class RunWriter {
  readonly events: Event[] = [];
  readonly objects: NonNullable<ExportDocument["objects"]> = [];
  private now: number;
  private runId: string;
  private spaceId = "";
  private actor: Record<string, string> = {};
  private markers = new Set<Marker>();
  private progress = 0;
  private tokens = 0;

  constructor(
    private r: Rng,
    private id: (p: string) => string,
    private ws: string,
    at: number,
    private nextSeq: () => number,
  ) {
    this.now = at;
    this.runId = id("run");
  }

  private emit(type: string, actor: Record<string, string>, fields: Record<string, unknown>, stepMs = 0) {
    this.now += stepMs;
    this.events.push({
      v: 1,
      type,
      id: this.id("evt"),
      ts: new Date(this.now).toISOString(),
      seq: this.nextSeq(),
      workspace_id: this.ws,
      space_id: this.spaceId,
      run_id: this.runId,
      ...(actor.kind === "system" ? {} : { idempotency_key: `seed-${this.events.length}-${this.runId}` }),
      actor,
      ...fields,
    });
  }

  private text(pool: readonly string[]): string {
    let t = this.r.pick(pool);
    // Now and then a run mentions one of the words a search must find (the facts say which).
    if (this.r.chance(0.18)) {
      const m = this.r.pick(MARKERS);
      this.markers.add(m.marker);
      t = `${t} ${m.text}`;
    }
    return t;
  }

  write(p: RunPlan): RunFacts {
    this.spaceId = p.room.id;
    const runner = p.harness.kind === "runner";
    // Only a runner's run waits in a queue; a harness's is running from its first event.
    if (p.live === "queued" && !runner) p = { ...p, live: "running" };
    this.actor =
      p.agent && !runner
        ? { kind: "agent", id: p.agent, harness_id: p.harness.id }
        : { kind: "harness", id: p.harness.id };
    const goal = this.text(GOALS);
    const queuedAt = this.now;
    if (runner) {
      const agent = this.r.pick(["codex", "claude"]);
      this.emit(
        "run.queued",
        { kind: "person", id: p.person.id },
        {
          goal,
          goal_from: "chips",
          request: {
            repository: this.r.pick(["billing-api", "web", "infra"]),
            base_branch: "main",
            agent,
            profile: "workspace-write",
            required_commands: ["npm test"],
            secrets: [],
          },
        },
      );
      if (p.live === "queued")
        return this.facts(
          p,
          "queued",
          queuedAt,
          null,
          false,
          0,
          { planned: 0, done: 0, skipped: 0, added: 0, reordered: false, unfinished: 0 },
          0,
          agent,
        );
      this.emit(
        "run.assigned",
        { kind: "system", id: "system" },
        { runner_id: p.harness.id, runner_name: p.harness.name },
        this.r.int(200, 20_000),
      );
    }
    const planned = this.r.int(2, 6);
    const plan = Array.from({ length: planned }, (_, k) => ({ step_id: `s${k + 1}`, title: this.r.pick(STEPS) }));
    const startedAt = (this.now += this.r.int(300, 5000));
    this.emit("run.started", this.actor, {
      goal,
      plan,
      ...(runner ? { goal_from: "chips" } : this.r.chance(0.5) ? { goal_from: "harness" } : {}),
      ...(this.r.chance(0.3) ? { session_ref: `tty${this.r.int(1, 9)}` } : {}),
    });
    if (runner)
      this.emit("runner.event", this.actor, {
        sequence: 1,
        kind: "started",
        message: "worktree ready",
        occurred_at: new Date(this.now).toISOString(),
      });

    // The order steps are worked in: now and then one out of the plan's order, one skipped.
    const order = plan.map((s) => s.step_id);
    const reordered = planned >= 3 && this.r.chance(0.2);
    if (reordered) [order[1], order[2]] = [order[2], order[1]];
    const skip = planned >= 3 && this.r.chance(0.2) ? order.pop()! : null;
    const fail = this.r.chance(0.2);
    const cancel = !fail && this.r.chance(0.1);
    const addLate = this.r.chance(0.2);
    let commands = 0;
    let done = 0;
    let unfinished = 0;
    const budget = Math.max(0, p.target - 6);
    const perStep = Math.max(1, Math.floor(budget / (order.length + (addLate ? 1 : 0))));
    const steps = [...order];
    if (addLate) steps.push("late");
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k];
      const last = k === steps.length - 1;
      if (p.live === "running" && k === Math.floor(steps.length / 2)) {
        this.emit(
          "run.step",
          this.actor,
          { step_id: step, state: "active", ...(step === "late" ? { title: this.text(STEPS) } : {}) },
          this.r.int(500, 4000),
        );
        this.status(1);
        return this.facts(
          p,
          "running",
          startedAt,
          null,
          false,
          0,
          { planned, done, skipped: 0, added: step === "late" ? 1 : 0, reordered, unfinished: 0 },
          commands,
        );
      }
      this.emit(
        "run.step",
        this.actor,
        { step_id: step, state: "active", ...(step === "late" ? { title: this.text(STEPS) } : {}) },
        this.r.int(500, 4000),
      );
      const cancelHere = cancel && k === 1;
      for (let s = 0; s < Math.max(perStep - 2, cancelHere ? 1 : 0); s++) {
        if (cancelHere && s === 0) commands += this.command(p.person, true);
        else if (this.r.chance(0.08) && commands < 3) commands += this.command(p.person, false);
        else if (this.r.chance(0.15))
          this.emit("message.posted", this.actor, { text: this.text(MESSAGES) }, this.r.int(1000, 30_000));
        else this.status(steps.length);
        if (this.cancelled) break;
      }
      if (this.cancelled) {
        unfinished = steps.length - k;
        break;
      }
      if (fail && last) {
        this.emit(
          "run.step",
          this.actor,
          { step_id: step, state: "failed", note: this.text(MESSAGES) },
          this.r.int(1000, 60_000),
        );
        unfinished = 1;
      } else {
        this.emit("run.step", this.actor, { step_id: step, state: "done" }, this.r.int(1000, 60_000));
        done++;
      }
    }
    if (skip && !this.cancelled)
      this.emit("run.step", this.actor, { step_id: skip, state: "skipped", note: "not needed" }, this.r.int(100, 2000));
    let failedChecks = 0;
    let hasChangeSet = false;
    if (runner && !this.cancelled) {
      const cs = seedChangeSet(this.r, { ws: this.ws, runId: this.runId, at: this.now, fail, objects: this.objects });
      this.emit("runner.event", this.actor, cs.fields, this.r.int(1000, 20_000));
      failedChecks = cs.failedChecks;
      hasChangeSet = true;
    }
    if (!this.cancelled) {
      this.emit(
        "run.finished",
        this.actor,
        { outcome: fail ? "failed" : "succeeded", summary: this.text(fail ? FAILED : DONE), usage: this.usage() },
        this.r.int(500, 10_000),
      );
    }
    const outcome = this.cancelled ? "cancelled" : fail ? "failed" : "succeeded";
    return this.facts(
      p,
      outcome,
      startedAt,
      this.now - startedAt,
      hasChangeSet,
      failedChecks,
      { planned, done, skipped: skip && !this.cancelled ? 1 : 0, added: addLate ? 1 : 0, reordered, unfinished },
      commands,
    );
  }

  private cancelled = false;

  private status(steps: number) {
    this.progress = Math.min(1, this.progress + this.r.next() / (steps * 3));
    this.tokens += this.r.int(200, 4000);
    this.emit(
      "run.status",
      this.actor,
      {
        phase: this.r.pick(["reading", "editing", "testing", "thinking"]),
        verb_phrase: this.text(STATUS),
        progress: Math.round(this.progress * 1000) / 1000,
        estimate_seconds: this.r.int(5, 600),
        ...(this.r.chance(0.3) ? { usage: this.usage() } : {}),
      },
      this.r.int(800, 20_000),
    );
  }

  /** The run's usage so far (cumulative, as a harness reports it). */
  private usage() {
    return {
      input_tokens: this.tokens,
      output_tokens: Math.floor(this.tokens / 4),
      cost_usd: Math.round(this.tokens * 0.3) / 100_000,
    };
  }

  /** A person's command, its delivery and the harness's answer; a cancel ends the run. Answers 1. */
  private command(person: Person, cancel: boolean): number {
    const command_id = this.id("cmd");
    const kind = cancel ? "cancel" : this.r.pick(["steer", "pause", "steer"] as const);
    this.emit(
      "run.command",
      { kind: "person", id: person.id },
      { command_id, command: kind, ...(kind === "steer" ? { text: this.text(STEER) } : {}) },
      this.r.int(1000, 60_000),
    );
    this.emit("run.command_delivered", { kind: "system", id: "system" }, { command_id }, this.r.int(20, 900));
    const rejected = kind === "steer" && this.r.chance(0.25);
    this.emit(
      "run.command_acked",
      this.actor,
      {
        command_id,
        result: rejected ? "rejected" : "applied",
        ...(rejected ? { reason: this.r.pick(REJECTIONS) } : {}),
      },
      this.r.int(50, 8000),
    );
    if (kind === "cancel") {
      this.emit("run.finished", { kind: "system", id: "system" }, { outcome: "cancelled", summary: "Cancelled." });
      this.cancelled = true;
    }
    if (kind === "pause") {
      const resume = this.id("cmd");
      this.emit(
        "run.command",
        { kind: "person", id: person.id },
        { command_id: resume, command: "resume" },
        this.r.int(5000, 120_000),
      );
      this.emit("run.command_delivered", { kind: "system", id: "system" }, { command_id: resume }, this.r.int(20, 900));
      this.emit("run.command_acked", this.actor, { command_id: resume, result: "applied" }, this.r.int(50, 3000));
    }
    return 1;
  }

  private facts(
    p: RunPlan,
    status: RunFacts["status"],
    startedAt: number,
    durationMs: number | null,
    hasChangeSet: boolean,
    failedChecks: number,
    steps: RunFacts["steps"],
    commands: number,
    agent?: string,
  ): RunFacts {
    const runnerAgent = (this.events.find((e) => e.type === "run.queued")?.request as { agent?: string } | undefined)
      ?.agent;
    return {
      id: this.runId,
      room: p.room.name,
      // A queued run has no runner yet.
      harness: status === "queued" ? null : p.harness.name,
      agent: agent ?? runnerAgent ?? (this.actor.kind === "agent" ? this.actor.id : null),
      person: p.harness.kind === "runner" ? p.person.name : null,
      status,
      startedAt: new Date(startedAt).toISOString(),
      durationMs,
      hasChangeSet,
      failedChecks,
      markers: [...this.markers],
      steps,
      commands,
      events: this.events.length,
    };
  }
}
