import fs from "node:fs";
import path from "node:path";
import { clipUtf8, utf8Prefix } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import type { Command } from "@/lib/agents/sdk/types";
import type { JobContext, LaunchSpec } from "./adapter";
import { askSocketPath, serveAsks } from "./ask-socket";
import { checkpoint, removeWorktree } from "./git";
import { killJobProcesses, launch, stopGroup, type Job as Proc, type JobExit } from "./process";
import { publishChangeSet } from "./change-set";
import { hookAnswer } from "./hook-answer";
import { agentVerdict, finishSummary, StderrTail } from "./job-outcome";
import type { JobSetup } from "./job-setup";
import { PermissionRequests } from "./permission-requests";
import { doing, Translator } from "./translate";
import { jobContext } from "./environment";

export type JobState = "running" | "stopping" | "paused" | "finishing" | "finished";

/** A checkpoint's reason is a git commit subject: kept short. */
const CHECKPOINT_REASON_BYTES = 80;

/**
 * One run on this runner, after [RN1]'s checks passed and its worktree exists: launches the
 * agent, translates what it does, checkpoints its work, obeys pause/resume/steer/cancel,
 * and at the end runs the required commands and publishes the change-set. The process
 * control here is the same for every adapter.
 */
export class RunJob {
  state: JobState = "running";
  readonly translator: Translator;
  private proc: Proc | null = null;
  private generation = 0;
  private readonly stderr = new StderrTail();
  /** [TSK5] Paths of the change-set outside the claimed write scope (the scope check failed). */
  private outsideScope: string[] = [];
  private gitChain: Promise<unknown> = Promise.resolve();
  private guidance: string[] = [];
  private readonly permissions: PermissionRequests;
  private hookServer: { close(): void } | null = null;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(private s: JobSetup) {
    this.translator = new Translator(s.out, s.actor);
    this.permissions = new PermissionRequests(s);
    this.translator.onWork = () => void this.checkpoint("agent work");
    this.done = new Promise((r) => (this.resolveDone = r));
    s.out.whenGone((why) => void this.abort(why));
  }

  get runId() {
    return this.s.req.run_id;
  }

  private get ctx(): JobContext {
    return jobContext(this.s.req, this.s.worktree, this.s.jobDir, this.s.askSeconds);
  }

  /** Launch the agent with the task's prompt (an `ask` run through a hook first opens the job's socket). */
  begin() {
    void this.listenForHooks().then(() => {
      if (this.state === "running") this.spawn(this.s.adapter.start(this.ctx, this.s.req.prompt.text));
    });
  }

  /** [RN9] The socket a hook asks through; failing to open it fails the run before anything runs. */
  private async listenForHooks() {
    if (!this.s.asks || this.s.adapter.askPolicy?.via !== "hook") return;
    try {
      const asks = this.s.asks;
      this.hookServer = await serveAsks(askSocketPath(this.s.jobDir), (input) =>
        hookAnswer(asks, input, () => this.state === "running"),
      );
    } catch (e) {
      await this.finish({ code: null, signal: null }, `could not open the ask socket: ${(e as Error).message}`);
    }
  }

  private spawn(spec: LaunchSpec) {
    this.translator.relaunched();
    const gen = ++this.generation;
    const env = { ...this.s.env, ...spec.env, CHIPS_JOB: this.s.req.run_id };
    try {
      this.proc = launch({
        cmd: spec.cmd,
        args: spec.args,
        cwd: this.s.worktree,
        env: env as unknown as NodeJS.ProcessEnv,
        ...(spec.stdin ? { stdin: "pipe" as const } : {}),
        onLine: (line) => {
          for (const e of this.s.adapter.parse(line, this.ctx)) {
            if (e.type === "permission")
              void this.permissions.answer(e.requestId, e.call, () =>
                gen === this.generation ? this.proc?.child.stdin : null,
              );
            else if (e.type === "permission_withdrawn") this.permissions.withdraw(e.requestId);
            else {
              // The turn's result: with stdin left open the CLI would wait for more input.
              if (e.type === "turn_completed" || e.type === "turn_failed") this.proc?.child.stdin?.end();
              this.translator.handle(e);
            }
          }
        },
        onStderr: (line) => this.stderr.push(line),
      });
    } catch (e) {
      void this.finish(
        { code: null, signal: null },
        `could not launch ${this.s.adapter.agent}: ${(e as Error).message}`,
      );
      return;
    }
    for (const line of spec.stdin ?? []) this.proc.child.stdin?.write(line + "\n");
    void this.proc.exited.then((exit) => {
      if (gen === this.generation && this.state === "running") void this.finish(exit);
    });
  }

  /** Commit whatever the agent changed (outside its sandbox: it cannot write .git). */
  checkpoint(reason: string): Promise<{ sha: string; committed: boolean } | null> {
    const next = this.gitChain.then(async () => {
      try {
        const cp = await checkpoint(this.s.worktree, `chips: checkpoint (${reason})`);
        if (cp.committed)
          void this.s.out.runnerEvent("checkpoint", `checkpoint ${cp.sha.slice(0, 12)} (${reason})`, {
            sha: cp.sha,
            reason,
          });
        return cp;
      } catch (e) {
        void this.s.out.runnerEvent("log", `checkpoint failed: ${(e as Error).message}`);
        return null;
      }
    });
    this.gitChain = next;
    return next;
  }

  /** Stop the agent for sure: its group by escalating signals, then anything that left the group. */
  private async stopAgent(): Promise<string[]> {
    this.generation++; // whatever exits now was asked to
    this.permissions.withdrawAll();
    const proc = this.proc;
    this.proc = null;
    const signals = proc ? (await stopGroup(proc, { graceMs: this.s.stopGraceMs })).signals : [];
    const strays = await killJobProcesses(this.s.req.run_id);
    if (strays.length) signals.push(`SIGKILL to ${strays.length} process(es) outside the group`);
    return signals;
  }

  private ack(cmd: Command, result: "applied" | "rejected", reason?: string) {
    return this.s.out.post({
      type: "run.command_acked",
      command_id: cmd.command_id,
      result,
      ...(reason ? { reason } : {}),
      actor: this.s.actor,
    });
  }

  async command(cmd: Command) {
    const busy = this.state === "stopping" || this.state === "finishing";
    if (this.state === "finished") return this.ack(cmd, "rejected", "the run has finished");
    switch (cmd.command) {
      case "pause":
        if (this.state !== "running")
          return this.ack(cmd, "rejected", busy ? "the runner is busy stopping the agent" : "the run is not running");
        this.state = "stopping";
        await this.checkpoint("before pause");
        await this.stopAgent();
        await this.checkpoint("paused");
        this.state = "paused";
        return this.ack(cmd, "applied");
      case "resume":
        if (this.state !== "paused") return this.ack(cmd, "rejected", "the run is not paused");
        await this.ack(cmd, "applied"); // before the agent's first status: a paused run refuses statuses
        this.state = "running";
        return this.relaunch(["Continue the task from where you stopped.", ...this.takeGuidance()].join("\n\n"));
      case "steer": {
        const text = `Guidance from the room: ${cmd.text ?? ""}`;
        if (this.state === "paused" || busy) {
          this.guidance.push(text); // given to the agent when it runs again
          return this.ack(cmd, "applied");
        }
        this.state = "stopping";
        await this.checkpoint("before steering");
        await this.stopAgent();
        this.state = "running";
        this.relaunch([text, ...this.takeGuidance()].join("\n\n"));
        return this.ack(cmd, "applied");
      }
      case "cancel":
        return this.cancel(cmd);
    }
  }

  private takeGuidance() {
    const g = this.guidance;
    this.guidance = [];
    return g;
  }

  private relaunch(text: string) {
    const session = this.translator.sessionId;
    this.spawn(
      session
        ? this.s.adapter.resume(this.ctx, session, text)
        : this.s.adapter.start(this.ctx, `${this.s.req.prompt.text}\n\n${text}`),
    );
  }

  private async cancel(cmd: Command) {
    this.state = "finishing";
    const signals = await this.stopAgent();
    void this.s.out.runnerEvent(
      "log",
      `agent stopped: ${signals.length ? signals.join(", ") : "it had already exited"}`,
      { signals },
    );
    const by = cmd.actor?.id ?? "a person";
    await this.publish(false, `cancelled by ${by}`);
    // The applied ack finishes the run: Chips appends run.finished{cancelled} ([RUN1]).
    await this.ack(cmd, "applied");
    this.end();
  }

  /** The agent exited on its own: checkpoint, required commands, change-set, finished. */
  private async finish(exit: JobExit, launchError?: string) {
    this.state = "finishing";
    this.generation++;
    this.permissions.withdrawAll();
    await killJobProcesses(this.s.req.run_id);
    const t = this.translator;
    const { ok: agentOk, why } = agentVerdict(this.s.adapter.agent, exit, launchError, t, this.stderr);
    const checksFailed = await this.publish(agentOk, why ?? "the agent finished");
    const outcome = agentOk && !checksFailed ? "succeeded" : "failed";
    const summary = finishSummary(why, this.outsideScope, checksFailed, t.lastMessage);
    if (outcome === "failed") await this.s.out.runnerEvent("failed", summary);
    else await this.s.out.runnerEvent("completed", "the agent finished and every required command passed");
    await this.s.out.post({
      type: "run.finished",
      outcome,
      summary: clipUtf8(summary, LIMITS.summary),
      ...(t.usage ? { usage: t.usage } : {}),
      actor: this.s.actor,
    });
    if (outcome === "succeeded" && this.s.cleanup === "remove")
      await removeWorktree(this.s.repoDir, this.s.worktree).catch(() => {});
    this.end();
  }

  /** Final checkpoint, then the change-set (checks only when the agent succeeded). Answers how many checks failed. */
  private async publish(runChecksToo: boolean, reason: string): Promise<number> {
    const cp = await this.checkpoint(utf8Prefix(reason, CHECKPOINT_REASON_BYTES));
    const { failed, outside } = await publishChangeSet(this.s, cp?.sha ?? this.s.baseSha, runChecksToo, (c) =>
      this.translator.status("checking", doing("Running", c)),
    );
    this.outsideScope = outside;
    return failed;
  }

  /** Chips let go of the run (finished elsewhere, lease lost): stop, keep the evidence, post nothing more. */
  async abort(why: string) {
    if (this.state === "finished") return;
    this.state = "finishing";
    await this.stopAgent();
    await this.checkpoint(utf8Prefix(`stopped: ${why}`, CHECKPOINT_REASON_BYTES));
    console.error(`[runner] ${this.s.req.run_id}: stopped (${why}); worktree kept at ${this.s.worktree}`);
    this.end();
  }

  private end() {
    this.state = "finished";
    this.hookServer?.close();
    fs.rm(path.join(this.s.jobDir, "tmp"), { recursive: true, force: true }, () => {});
    this.resolveDone();
  }
}
