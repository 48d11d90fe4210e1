import { clipUtf8 } from "../../core/protocol/clip";
import { utf8Length } from "../../core/protocol/fields";
import { LIMITS } from "../../core/protocol/limits";
import { newId } from "../../core/protocol/ids";
import type { ChipsClient, Command, CommandControls, RunHandle } from "../sdk";
import { rejectLeftovers, refuse, take, type CommandQueue, type Pending } from "./queue";
import { Waker } from "./waker";
import { makePlan, Progress, steeredStep, verbPhrase, type DemoStep } from "./plan";
import { askRoom } from "./ask";

/** How the demo runs. */
export interface DemoOptions {
  /** A client with a harness token. */
  client: ChipsClient;
  /** The room; the workspace's first room when left out. */
  spaceId?: string;
  /** Plan steps (1..200). */
  steps: number;
  /** Time per step, ms; a `run.status` goes out every quarter of it. */
  stepMs: number;
  /** One line per thing the demo does. */
  log(line: string): void;
  /** How long to wait for the command socket before starting anyway (default 5 s). */
  connectTimeoutMs?: number;
  /** Ask the room for a permission before the middle step, and wait for the answer ([ASK1]). */
  ask?: boolean;
}

/** How the demo ended: done, cancelled by a person (acked), or stopped by a signal. */
export interface DemoEnd {
  runId: string;
  outcome: "succeeded" | "cancelled" | "stopped";
}

/** A refusal the demo reports and exits on (e.g. a person's token). */
export class DemoError extends Error {}

class Cancelled {}
class Stopped {}

/** Status updates per step. */
const TICKS = 4;
/** How much of a message the demo's own log line quotes, in UTF-8 bytes. */
const LOGGED_BYTES = 200;
/** What the demo's message about a steer ends with. */
const NEXT = " — adding a step for it next.";

/**
 * The demo harness: a pretend agent that works through a plan in a room, showing status,
 * steps and messages, and obeys people's commands ([RUN1]):
 * - pause: stops at the next safe point, then acks `applied`; posts nothing until resumed;
 * - resume: acks `applied`, then carries on;
 * - steer: acks `applied` (at once, even while paused), says `Steering: "<guidance>"` in
 *   its next message, and adds a step titled from the guidance, worked next;
 * - cancel: stops, acks `applied` (the server then finishes the run `cancelled`).
 * One worker loop does all the posting; command handlers only queue and wake it, so
 * nothing is ever posted while an ack says the run has stopped.
 */
export class Demo {
  private run: RunHandle | null = null;
  private runId = "";
  private readonly queue: CommandQueue = { steers: [] };
  private paused = false;
  private finished = false;
  private stopReason: string | null = null;
  private readonly waker = new Waker();
  private steered = 0;
  private asked = false;
  /** Steers acked while paused, still to be announced and worked. */
  private readonly acked = new WeakSet<Pending>();
  /** Index in the work list of the next step not started (where a steered step goes). */
  private cursor = 0;

  constructor(private readonly opts: DemoOptions) {}

  /** Stop working (a signal): the run is finished `failed` with the reason as its summary. */
  stop(reason: string): void {
    this.stopReason ??= reason;
    this.waker.wake();
  }

  /** Run the demo to its end. Throws ChipsError for a refused token or an unreachable server. */
  async start(): Promise<DemoEnd> {
    const { client, log } = this.opts;
    const me = await client.whoami();
    if (me.kind !== "harness" && me.kind !== "runner") {
      throw new DemoError(
        `the demo runs as a harness, but this is a ${me.kind}'s token (use the harness token, e.g. .chips/harness-token)`,
      );
    }
    const spaceId = this.opts.spaceId ?? me.spaces?.[0]?.id;
    if (!spaceId) throw new DemoError("this workspace has no room: create one, or pass --space");
    if (this.stopReason) return { runId: "", outcome: "stopped" };

    this.runId = newId("run");
    const commands = client.onCommand((c, controls) => this.receive(c, controls), {
      onError: (e) => log(`demo: command channel: ${(e as Error)?.message ?? e}`),
      onStatus: (s) => void (this.run && !this.finished && log(`demo: command channel ${s}`)),
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connected = await Promise.race([
      commands.ready().then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), this.opts.connectTimeoutMs ?? 5000))),
    ]).finally(() => clearTimeout(timer));
    if (this.stopReason) {
      commands.close();
      return { runId: "", outcome: "stopped" };
    }

    const plan = makePlan(this.opts.steps);
    const started = Date.now();
    try {
      this.run = await client.startRun({
        runId: this.runId,
        spaceId,
        goal: `Demo: a pretend task in ${plan.length} steps`,
        plan: plan.map(({ step_id, title }) => ({ step_id, title })),
      });
    } catch (e) {
      commands.close();
      throw e;
    }
    log(`demo: run ${this.runId} in ${spaceId}`);
    log(
      connected ? "demo: listening for commands on /harness" : "demo: command socket not connected yet (still trying)",
    );

    try {
      await this.work(plan);
      const done = plan.length;
      const summary = `Did ${done} step${done === 1 ? "" : "s"}${this.steered ? ` (${this.steered} added by steering)` : ""} in ${Math.round((Date.now() - started) / 100) / 10} s.`;
      this.finished = true;
      await this.run.finish("succeeded", { summary });
      log(`demo: finished succeeded: ${summary}`);
      return { runId: this.runId, outcome: "succeeded" };
    } catch (e) {
      this.finished = true;
      if (e instanceof Cancelled) {
        log("demo: cancelled (the server finishes the run)");
        return { runId: this.runId, outcome: "cancelled" };
      }
      if (e instanceof Stopped) {
        await this.run.finish("failed", { summary: this.stopReason ?? "demo stopped" });
        log(`demo: finished failed: ${this.stopReason}`);
        return { runId: this.runId, outcome: "stopped" };
      }
      throw e;
    } finally {
      this.finished = true;
      await rejectLeftovers(this.queue, this.acked, this.opts.log);
      commands.close();
    }
  }

  /** A command arrived: queue it for the worker (which acks it at a safe point) and wake it. */
  private receive(command: Command, controls: CommandControls) {
    const { log } = this.opts;
    if (command.run_id !== this.runId) {
      log(`demo: command ${command.command} ${command.command_id} is for another run (${command.run_id}): left alone`);
      return;
    }
    log(`demo: command ${command.command} ${command.command_id}${command.text ? `: "${command.text}"` : ""}`);
    const p = { command, controls };
    if (this.finished) return void this.refuse(p, "the run has finished");
    if (command.command === "steer") this.queue.steers.push(p);
    else this.queue[command.command] = p;
    this.waker.wake();
  }

  /** Work through the plan, and any steps steering adds, with a safe point before each post. */
  private async work(todo: DemoStep[]) {
    const { log } = this.opts;
    const run = this.run!;
    const tickMs = this.opts.stepMs / TICKS;
    const progress = new Progress();
    for (let i = 0; ; i++) {
      await this.checkpoint(todo);
      if (i >= todo.length) return;
      if (this.opts.ask && i === Math.floor(todo.length / 2) && !this.asked) {
        this.asked = true;
        await askRoom(run, this.waker, () => this.checkpoint(todo), log);
      }
      const step = todo[i];
      this.cursor = i + 1;
      const label = `${i + 1}/${todo.length}`;
      await run.step(step.step_id, "active", step.guidance ? { title: step.title } : {});
      log(`demo: step ${step.step_id} active: ${step.title}`);
      for (let t = 1; t <= TICKS; t++) {
        await this.waker.sleep(tickMs);
        await this.checkpoint(todo);
        const doneTicks = i * TICKS + t;
        const totalTicks = todo.length * TICKS;
        const p = progress.at(doneTicks, totalTicks);
        const eta = Math.round(((totalTicks - doneTicks) * tickMs) / 100) / 10;
        const verb = verbPhrase(step);
        await run.status({
          phase: step.guidance ? "steered" : "working",
          verbPhrase: verb,
          progress: p,
          estimateSeconds: eta,
        });
        log(`demo: status ${Math.round(p * 100)}% ~${eta}s: ${verb}`);
      }
      await this.checkpoint(todo);
      const text = step.guidance
        ? clipUtf8(`Step ${label} done: followed the guidance "${step.guidance}".`, LIMITS.text)
        : `Step ${label} done: ${step.title}.`;
      await run.message(text);
      log(`demo: message: ${clipUtf8(text, LOGGED_BYTES)}`);
      await this.checkpoint(todo);
      await run.step(step.step_id, "done");
      log(`demo: step ${step.step_id} done`);
    }
  }

  /**
   * The safe point: commands are acted on here, and only here. Cancel and stop end the
   * work; a pause is acked once we are here (stopped), then we wait for resume (or cancel,
   * or stop) and post nothing; a steer is acked, quoted, and becomes the next step.
   */
  private async checkpoint(todo: DemoStep[]) {
    const { log } = this.opts;
    for (;;) {
      if (this.stopReason) throw new Stopped();
      const q = this.queue;
      if (q.cancel) {
        const c = take(q, "cancel");
        await c.controls.apply();
        log(`demo: acked cancel ${c.command.command_id} applied`);
        throw new Cancelled();
      }
      if (q.pause && !this.paused) {
        const c = take(q, "pause");
        await c.controls.apply();
        this.paused = true;
        log(`demo: paused (acked pause ${c.command.command_id} applied)`);
        continue;
      }
      if (q.pause) await this.refuse(take(q, "pause"), "the run is already paused");
      if (this.paused) {
        // Guidance is taken on board at once (the ack is no work); it shows once resumed.
        for (const s of q.steers) if (!this.acked.has(s)) await this.acceptSteer(s);
        if (q.resume) {
          const c = take(q, "resume");
          await c.controls.apply();
          this.paused = false;
          log(`demo: resumed (acked resume ${c.command.command_id} applied)`);
          continue;
        }
        await this.waker.idle();
        continue;
      }
      if (q.resume) await this.refuse(take(q, "resume"), "the run is not paused");
      const s = q.steers.shift();
      if (s) {
        const guidance = s.command.text ?? "";
        if (!this.acked.has(s)) await this.acceptSteer(s);
        const step = steeredStep(++this.steered, guidance);
        todo.splice(this.cursor, 0, step);
        const text = clipUtf8(`Steering: "${guidance}"`, LIMITS.text - utf8Length(NEXT)) + NEXT;
        await this.run!.message(text);
        log(`demo: message: ${clipUtf8(text, LOGGED_BYTES)}`);
        continue;
      }
      return;
    }
  }

  private async acceptSteer(s: Pending) {
    await s.controls.apply();
    this.acked.add(s);
    this.opts.log(`demo: acked steer ${s.command.command_id} applied`);
  }

  private refuse(p: Pending, reason: string) {
    return refuse(p, reason, this.opts.log);
  }
}
