import { newId } from "../../lib/core/protocol";
import { ev, key, request, type Workspace } from "./api";
import { RoomWorld } from "./room-sequences";
import type { rawRunner } from "./raw-runner";
import { TaskWorld } from "./task-sequences";
import { SLOTS, type Intent } from "./intents";
import { applies, newSlot, type RunSlot } from "./run-slots";
import { toolEvent } from "./tool-sequences";
import { askRequest } from "./ask-sequences";
import { until } from "./feed";

/**
 * Random but legal event sequences for property tests: fast-check draws a list of
 * intents (intents.ts) ("start run 1", "pause run 0", "ack run 2's oldest open command"…), and
 * {@link SequenceWorld} turns each into the request a harness, runner or person would
 * really send — or skips it when the run's state does not allow it ([RUN1]), so every
 * request it sends must succeed. What it cannot decide alone (when dispatch hands a queued
 * run to the runner) it waits for, so the log is whole when the test reads it.
 */

type RawRunner = Awaited<ReturnType<typeof rawRunner>>;

/** One workspace's world: turns intents into real requests, keeping track of what is legal. */
export class SequenceWorld {
  readonly runs: (RunSlot | undefined)[] = [];
  private readonly agentId = newId("agent");
  readonly tasks: TaskWorld;
  readonly room: RoomWorld;

  constructor(
    private server: { url: string },
    private ws: Workspace,
    private runner: { id: string; token: string; raw: RawRunner },
  ) {
    this.tasks = new TaskWorld(server, ws);
    this.room = new RoomWorld(server, ws, (by, event) => this.post(by, event));
  }

  get runIds(): string[] {
    return this.runs.filter((r): r is RunSlot => !!r).map((r) => r.id);
  }

  async apply(i: Intent): Promise<void> {
    // An intent about a run picks among the runs made so far; one that makes a run takes a free slot.
    const fit = this.runs.filter((r): r is RunSlot => !!r && applies(i, r));
    const run = "run" in i && fit.length ? fit[i.run % fit.length] : undefined;
    const free = this.runs.length < SLOTS ? this.runs.length : -1;
    switch (i.t) {
      case "start": {
        if (free < 0) return;
        const id = newId("run");
        const steps = Array.from({ length: i.steps }, (_, n) => `s${n}`);
        await this.post("harness", {
          ...ev(this.ws, "run.started", {
            space_id: this.ws.space_id,
            run_id: id,
            goal: `Goal of ${id}`,
            plan: steps.map((s) => ({ step_id: s, title: `Step ${s}` })),
            ...(i.goalFrom ? { goal_from: i.goalFrom } : {}),
            ...(i.session ? { session_ref: `term-${free}` } : {}),
          }),
          ...(i.agent ? { actor: { kind: "agent", id: this.agentId } } : {}),
        });
        this.runs[free] = newSlot(id, "harness", "running", false, steps);
        return;
      }
      case "queue": {
        if (free < 0) return;
        const r = await this.call("POST", "/api/v1/runs", this.ws.person_token, {
          space_id: this.ws.space_id,
          prompt: `Please do task ${free}`,
          repository: i.routed ? "demo" : "nowhere",
          idempotency_key: key(),
        });
        this.runs[free] = newSlot(r.run_id, "runner", "queued", i.routed, []);
        return;
      }
      case "take": {
        if (!run) return;
        await this.runner.raw.startFor(run.id);
        const steps = Array.from({ length: i.steps }, (_, n) => `t${n}`);
        await this.post("runner", {
          ...ev(
            this.ws,
            "run.started",
            {
              space_id: this.ws.space_id,
              run_id: run.id,
              goal: `Taken: ${run.id}`,
              plan: steps.map((s) => ({ step_id: s, title: `Todo ${s}` })),
              ...(i.goalFrom ? { goal_from: i.goalFrom } : {}),
              session_ref: `worktree-${run.id}`,
            },
            this.runner.id,
          ),
        });
        Object.assign(run, { state: "running", steps, taken: true });
        return;
      }
      case "step": {
        if (!run) return;
        const existing = run.steps[i.step];
        const stepId = existing ?? `x${run.added++}`;
        if (!existing) run.steps.push(stepId);
        await this.post(
          run.by,
          this.runEvent(run, "run.step", {
            step_id: stepId,
            state: i.state,
            ...(existing ? {} : { title: `Added ${stepId}` }),
            ...(i.note !== undefined ? { note: i.note } : {}),
          }),
        );
        return;
      }
      case "status": {
        if (!run) return;
        if (i.advance !== null) run.progress = Math.min(1, run.progress + i.advance);
        if (i.usage) run.tokens += 10;
        await this.post(
          run.by,
          this.runEvent(run, "run.status", {
            phase: "working",
            verb_phrase: `Working on ${run.id}`,
            ...(i.advance !== null ? { progress: run.progress } : {}),
            ...(i.eta ? { estimate_seconds: 30 } : {}),
            ...(i.usage
              ? {
                  usage: {
                    input_tokens: run.tokens,
                    output_tokens: Math.floor(run.tokens / 2),
                    cost_usd: run.tokens / 1000,
                  },
                }
              : {}),
          }),
        );
        return;
      }
      case "annotate": {
        if (!run) return;
        await this.call("POST", `/api/v1/runs/${run.id}/annotations`, this.ws.person_token, {
          ...(i.verdict ? { verdict: i.verdict } : {}),
          ...(i.comment || !i.verdict ? { comment: "Looked at it" } : {}),
          idempotency_key: key(),
        });
        return;
      }
      case "command": {
        if (!run) return;
        const changes = i.command !== "steer";
        // [RUN3] a steer to a queued run waits for the runner to hold it (dispatch assigns it by itself).
        if (i.command === "steer" && run.state === "queued") await this.runner.raw.startFor(run.id);
        const sent = await this.call("POST", `/api/v1/runs/${run.id}/commands`, this.ws.person_token, {
          command: i.command,
          ...(i.command === "steer" ? { text: "look at the README first" } : {}),
          idempotency_key: key(),
        });
        if (i.command === "cancel" && run.state === "queued") {
          // Nobody runs it yet: cancelled at once, and the run's open commands are settled.
          run.commands.push({ id: sent.command_id, command: i.command, open: false });
          run.state = "finished";
          return;
        }
        run.commands.push({ id: sent.command_id, command: i.command, open: true });
        run.pending ||= changes;
        return;
      }
      case "poll":
        await this.call(
          "GET",
          "/api/v1/commands?after=0&limit=1000",
          i.who === "harness" ? this.ws.token : this.runner.token,
        );
        return;
      case "ack": {
        if (!run) return;
        const open = run.commands.filter((c) => c.open);
        const cmd = open[i.nth % open.length];
        await this.post(
          run.by,
          this.runEvent(run, "run.command_acked", {
            command_id: cmd.id,
            result: i.result,
            ...(i.reason ? { reason: "not now" } : {}),
          }),
        );
        cmd.open = false;
        if (run.state === "finished" || cmd.command === "steer") return;
        run.pending = false;
        if (i.result === "rejected") return;
        if (cmd.command === "pause") run.state = "paused";
        if (cmd.command === "resume") run.state = "running";
        if (cmd.command === "cancel") run.state = "finished"; // Chips appends run.finished{cancelled}
        return;
      }
      case "runner": {
        if (!run) return;
        const payload =
          i.kind === "checkpoint"
            ? { sha: "0123abcd", reason: "before steering" }
            : i.kind === "change-set"
              ? { head_sha: "feedbeef", files: [], additions: 1, deletions: 0 }
              : { note: "extra" };
        await this.post(
          "runner",
          this.runEvent(
            run,
            "runner.event",
            {
              sequence: ++run.sequence,
              kind: i.kind,
              message: i.empty ? "" : `runner says ${i.kind}`,
              ...(i.payload ? { payload } : {}),
              occurred_at: new Date().toISOString(),
            },
            false,
          ),
        );
        return;
      }
      case "finish": {
        if (!run) return;
        if (i.usage) run.tokens += 5;
        await this.post(
          run.by,
          this.runEvent(run, "run.finished", {
            outcome: i.outcome,
            ...(i.summary ? { summary: "All done." } : {}),
            ...(i.usage
              ? { usage: { input_tokens: run.tokens, output_tokens: run.tokens, cached_input_tokens: 3 } }
              : {}),
          }),
        );
        run.state = "finished";
        run.succeeded = i.outcome === "succeeded";
        return;
      }
      case "tool": {
        if (!run) return;
        const t = toolEvent(run, i);
        await this.post(run.by, this.runEvent(run, t.type, t.fields));
        return;
      }
      case "task":
        await this.tasks.save(i);
        return;
      case "task-start": {
        if (free < 0) return;
        const id = await this.tasks.start(i, (runId) => !!this.runs.find((r) => r?.id === runId)?.succeeded);
        if (id) this.runs[free] = newSlot(id, "runner", "queued", true, []);
        return;
      }
      case "ask":
      case "answer":
      case "ask-applied":
      case "ask-close": {
        if (!run) return;
        const sent = askRequest(i, run);
        if (sent.by === "person") await this.call("POST", sent.path, this.ws.person_token, sent.body);
        else await this.post(run.by, this.runEvent(run, sent.body.type as string, sent.body));
        return;
      }
      case "room":
        return this.room.save(i);
      case "decide":
        return this.room.decide(i);
      case "message":
        return this.room.message(i);
    }
  }

  /**
   * Wait for what Chips does by itself: every routed run still queued is handed to the
   * runner (run.assigned, then runner.start) — after that the log no longer grows.
   */
  async settle(): Promise<void> {
    for (const run of this.runs)
      if (run && run.routed && run.state === "queued") await this.runner.raw.startFor(run.id);
    // A person's page is open (the test's room feed): each ask still waiting is marked shown by Chips ([ASK4]).
    for (const run of this.runs) {
      if (!run?.asks.length) continue;
      await until(
        async () =>
          !((await this.call("GET", `/api/v1/runs/${run.id}/asks`, this.ws.token)).asks as { state: string }[]).some(
            (a) => a.state === "asked",
          ),
        `every ask of ${run.id} shown or settled`,
      );
    }
  }

  private runEvent(run: RunSlot, type: string, fields: Record<string, unknown>, keyed = true) {
    const e = ev(
      this.ws,
      type,
      { run_id: run.id, ...fields },
      run.by === "runner" ? this.runner.id : this.ws.harness_id,
    );
    if (!keyed) delete e.idempotency_key;
    return e;
  }

  private async post(by: "harness" | "runner" | "person", event: Record<string, unknown>) {
    const token = by === "runner" ? this.runner.token : by === "person" ? this.ws.person_token : this.ws.token;
    await this.call("POST", "/api/v1/events", token, event);
  }

  private async call(method: string, path: string, token: string, body?: unknown): Promise<any> {
    const r = await request(`${this.server.url}${path}`, {
      method,
      token,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (r.status >= 300) throw new Error(`${method} ${path} refused ${r.status}: ${r.text}\n${JSON.stringify(body)}`);
    return r.body;
  }
}
