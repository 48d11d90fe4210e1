import type { AbstractAgent, AgentSubscriber } from "@ag-ui/client";
import type { ResumeEntry } from "@ag-ui/core";
import type { CommandName } from "../../core/protocol/events";
import { newId } from "../../core/protocol/ids";
import { clipUtf8, utf8Prefix } from "../../core/protocol/clip";
import { LIMITS } from "../../core/protocol/limits";
import type { PlanItem } from "../runner/adapter";
import { Translator } from "../runner/translate";
import type { ChipsClient } from "../sdk";
import type { Command, EventInput } from "../sdk/types";
import { askInterrupts } from "./ag-ui-asks";

/** What `bridgeAgUi` needs: a Chips client (a harness token), the room, the agent and what to ask it. */
export interface AgUiBridgeOptions {
  client: ChipsClient;
  spaceId: string;
  /** Any AG-UI agent: an `HttpAgent` for a URL, or your own `AbstractAgent`. */
  agent: AbstractAgent;
  /** What the person asked: the run's goal (`goal_from: harness`) and the agent's first user message. */
  prompt: string;
  log?: (line: string) => void;
}

/** Why a bridged run has no Pause button (AG-UI lets only the agent stop for input, by an interrupt). */
const AG_UI_NO_PAUSE = "AG-UI has no pause: an agent stops for input only by its own interrupt";

/** [RUN2] What the bridge declares on run.started: steer (abort and run again) and cancel (abort); no pause. */
const AG_UI_COMMANDS: CommandName[] = ["steer", "cancel"];
/**
 * A step's id from its name: letters and digits of any script (so two Japanese step names
 * are two dots), cut to fit `step-` + it in a step id ([LIM1]).
 */
const slug = (s: string) =>
  utf8Prefix(
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-|-$/g, ""),
    LIMITS.stepId - "step-".length,
  ) || "step";
const str = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * A plan carried in the agent's shared state (STATE_SNAPSHOT / STATE_DELTA, which the
 * client applies): the first array under `plan`, `steps`, `todos` or `tasks` whose items
 * have a title (`title`, `step`, `content`, `description`, `name`) and a status
 * (`status`/`state`: completed|done|in_progress|active…, or `done`/`completed` booleans).
 */
function planFromState(state: unknown): PlanItem[] | null {
  if (!state || typeof state !== "object") return null;
  for (const key of ["plan", "steps", "todos", "tasks"]) {
    const list = (state as Record<string, unknown>)[key];
    if (!Array.isArray(list)) continue;
    return list.map((raw) => {
      const i = (raw ?? {}) as Record<string, unknown>;
      const status = str(i.status) || str(i.state);
      return {
        text: str(i.title) || str(i.step) || str(i.content) || str(i.description) || str(i.name),
        completed:
          ["completed", "done", "complete", "finished"].includes(status) || i.done === true || i.completed === true,
        active: ["in_progress", "active", "running", "executing"].includes(status),
      };
    });
  }
  return null;
}

/** An AG-UI tool call as its start: the tool's name and its arguments (JSON, as streamed). */
function agUiCall(id: string, c: { name: string; args: string; at: number }) {
  return {
    type: "call_started" as const,
    id,
    tool: c.name || "tool",
    summary: `${c.name} ${c.args}`,
    input: c.args,
    at: c.at,
  };
}

/**
 * Point an AG-UI agent at a Chips room: runs it on the prompt and maps its event stream —
 * RUN_STARTED/FINISHED/ERROR to the run's life, STEP_STARTED/FINISHED to dots, a plan in
 * STATE_SNAPSHOT/STATE_DELTA to dots (the runner's translation), TEXT_MESSAGE_* to
 * messages, TOOL_CALL_START to the typing indicator, each tool call (TOOL_CALL_END with its
 * arguments, TOOL_CALL_RESULT) to tool.started / tool.finished ([TOOL3]). Commands map to what AG-UI has: a
 * cancel aborts the run (`abortRun`); a steer aborts it and runs the agent again on the same
 * thread with the guidance as the next user message (acked applied when that run starts);
 * a pause is refused (AG_UI_NO_PAUSE). A run that ends with interrupts (RUN_FINISHED's
 * `interrupt` outcome) asks the room about each ([AGUI1]) and runs the agent again with the
 * answers as its `resume`. Answers the outcome once the run is finished.
 */
export async function bridgeAgUi(
  o: AgUiBridgeOptions,
): Promise<{ runId: string; outcome: "succeeded" | "failed" | "cancelled" }> {
  const log = o.log ?? ((l: string) => console.warn(`[chips ag-ui] ${l}`));
  const runId = newId("run");
  await o.client.whoami();
  const actor = { kind: "harness" as const, id: o.client.harnessId! };
  let chain: Promise<unknown> = Promise.resolve();
  const post = (events: EventInput[]) => {
    const full = events.map(
      (e) => ({ run_id: runId, ...(e.type === "message.posted" ? { space_id: o.spaceId } : {}), ...e }) as EventInput,
    );
    chain = chain
      .then(() => o.client.post(full))
      .catch((e) => log(`could not post ${full.map((x) => x.type).join(", ")}: ${(e as Error).message}`));
    return chain;
  };
  const translator = new Translator({ post: (...e: EventInput[]) => post(e), runnerEvent: () => undefined }, actor);

  await o.client.post({
    type: "run.started",
    run_id: runId,
    space_id: o.spaceId,
    goal: clipUtf8(o.prompt.trim() || "(an empty prompt)", LIMITS.goal),
    goal_from: "harness",
    session_ref: o.agent.threadId,
    commands: AG_UI_COMMANDS,
  });
  o.agent.addMessage({ id: newId("event"), role: "user", content: o.prompt });

  let cancel: Command | null = null;
  const steers: Command[] = [];
  /** Withdraws the asks of interrupts still waiting: a cancel or a steer goes on without them. */
  let waiting: AbortController | null = null;
  const sub = o.client.onCommand(
    (cmd, controls) => {
      if (cmd.run_id !== runId) return;
      if (cmd.command === "pause" || cmd.command === "resume") return void controls.reject(AG_UI_NO_PAUSE);
      if (cmd.command === "cancel") cancel = cmd;
      else steers.push(cmd);
      waiting?.abort();
      o.agent.abortRun();
    },
    { onError: (e) => log(`commands: ${(e as Error)?.message ?? e}`) },
  );

  const texts = new Map<string, string>();
  /** Tool calls under way: name, arguments so far, when they began ([TOOL3]). */
  const calls = new Map<string, { name: string; args: string; at: number }>();
  /** The receipts of the answers a resumed run carries: sent once it has begun. */
  let applied: (() => Promise<void>) | null = null;
  let error: string | null = null;
  const subscriber: AgentSubscriber = {
    onEvent: ({ event }) => {
      const e: Readonly<Record<string, unknown>> & { type: string } = event;
      switch (e.type) {
        case "STEP_STARTED":
          void post([
            {
              type: "run.step",
              step_id: `step-${slug(str(e.stepName))}`,
              state: "active",
              title: clipUtf8(str(e.stepName) || "Step", LIMITS.title),
            },
          ]);
          break;
        case "STEP_FINISHED":
          void post([{ type: "run.step", step_id: `step-${slug(str(e.stepName))}`, state: "done" }]);
          break;
        case "TEXT_MESSAGE_START":
          texts.set(str(e.messageId), "");
          break;
        case "TEXT_MESSAGE_CONTENT":
          texts.set(str(e.messageId), (texts.get(str(e.messageId)) ?? "") + str(e.delta));
          break;
        case "TEXT_MESSAGE_END": {
          const text = texts.get(str(e.messageId)) ?? "";
          texts.delete(str(e.messageId));
          if (text.trim()) translator.handle({ type: "message", text });
          break;
        }
        case "RUN_STARTED":
          if (applied) {
            const report = applied;
            applied = null;
            chain = chain.then(report).catch((x) => log(`could not report an answer: ${(x as Error).message}`));
          }
          break;
        case "TOOL_CALL_START":
          calls.set(str(e.toolCallId), { name: str(e.toolCallName), args: "", at: Date.now() });
          translator.handle({
            type: "tool",
            id: str(e.toolCallId),
            phase: "started",
            verb: "Using",
            target: str(e.toolCallName),
          });
          break;
        case "TOOL_CALL_ARGS": {
          const c = calls.get(str(e.toolCallId));
          if (c) c.args += str(e.delta);
          break;
        }
        case "TOOL_CALL_END": {
          // The call is on the record once its arguments are whole: they are its summary.
          const c = calls.get(str(e.toolCallId));
          if (c) translator.handle(agUiCall(str(e.toolCallId), c));
          break;
        }
        case "TOOL_CALL_RESULT":
          translator.handle({ type: "call_finished", id: str(e.toolCallId), outcome: "ok", output: str(e.content) });
          calls.delete(str(e.toolCallId));
          break;
        case "RUN_ERROR":
          error = str(e.message) || "the agent reported an error";
          break;
      }
    },
    onStateChanged: ({ state }) => {
      const items = planFromState(state);
      if (items) translator.handle({ type: "plan", items });
    },
  };

  let outcome: "succeeded" | "failed" | "cancelled" = "succeeded";
  let resume: ResumeEntry[] | null = null;
  try {
    for (;;) {
      try {
        await o.agent.runAgent({ runId: newId("run"), ...(resume ? { resume } : {}) }, subscriber);
      } catch (e) {
        if (!cancel && !steers.length) error ??= (e as Error).message;
      }
      resume = null;
      const interrupts = o.agent.pendingInterrupts ?? [];
      if (interrupts.length && !cancel && !error) {
        waiting = new AbortController();
        try {
          ({ resume, applied } = await askInterrupts(o.client, runId, interrupts, calls, waiting.signal));
        } catch (e) {
          error = `could not ask the room: ${(e as Error).message}`;
        } finally {
          waiting = null;
        }
      }
      if (cancel) {
        await chain;
        await o.client.ack(runId, (cancel as Command).command_id, "applied"); // Chips finishes the run cancelled
        outcome = "cancelled";
        break;
      }
      if (!steers.length && !resume) {
        outcome = error ? "failed" : "succeeded";
        break;
      }
      if (!steers.length) continue; // resume with the room's answers
      const now = steers.splice(0);
      o.agent.addMessage({ id: newId("event"), role: "user", content: now.map((s) => s.text ?? "").join("\n\n") });
      error = null;
      for (const s of now) await o.client.ack(runId, s.command_id, "applied");
    }
    await chain;
    if (outcome !== "cancelled")
      await o.client.post({
        type: "run.finished",
        run_id: runId,
        outcome,
        ...(error ? { summary: clipUtf8(error, LIMITS.summary) } : {}),
      });
  } finally {
    sub.close();
  }
  return { runId, outcome };
}
