import type { TranslatorState } from "@/lib/agents/runner/translate";
import type { Command, EventInput } from "@/lib/agents/sdk/types";
import type { Durable } from "../outbox";
import type { ControlFiles } from "./control";
import type { AskEntry, AskRecord } from "./session-asks";
import type { Task } from "./tools";

/** What the drainer keeps of one Claude Code session (state/<sid>.json) and the records it folds. */

type CommandKind = Command["command"];

export interface RunState {
  id: string;
  /** The queue id of the turn's UserPromptSubmit: names its command files. */
  turn: string;
  started_at: string;
  state: "running" | "paused" | "finished";
  translator: TranslatorState;
  /** Task ids this run's dots show (the task tools' list outlives a turn). */
  shown: string[];
  /** A steer blocked the turn's stop: the agent goes on, the run too. */
  stop_blocked: boolean;
  /** Pause commands a gate holds a tool call for right now. */
  holding: string[];
  /** Why the gate denied the tool call whose PreToolUse comes next (a steer first, a pause held too long). */
  deny?: string;
  /** [CON3] Tools a person allowed for the rest of this run ("Allow for this run"). */
  granted?: string[];
}

export interface SessionState {
  sid: string;
  /** The last queue record applied (records at or before it are old news after a crash). */
  last: string | null;
  run: RunState | null;
  /** Earlier runs of the session (newest last): a command for one is answered "the turn ended". */
  past_runs: string[];
  tasks: Task[];
  open: Array<{ id: string; kind: CommandKind; run_id: string }>;
  /** Commands answered, so a redelivery after a reconnect is not applied twice. */
  answered: string[];
  /** [CON3]–[CON6] Permission prompts and notices asked in the room (newest last). */
  asks?: AskEntry[];
}

/** A queue record: the hook's input, a gate's decision (`chips_gate`), or an ask's start and end (ask.mjs). */
export type QueueRecord = Record<string, unknown> & {
  session_id?: string;
  hook_event_name?: string;
  chips_gate?: { kind: string; command_id?: string; command_ids?: string[]; resume_id?: string; at?: string };
  chips_ask?: AskRecord;
  chips_ask_end?: AskRecord;
};

export const emptySession = (sid: string): SessionState => ({
  sid,
  last: null,
  run: null,
  past_runs: [],
  tasks: [],
  open: [],
  answered: [],
});

/** Who the session's events are from, and where they go. */
export interface SessionContext {
  spaceId: string;
  harnessId: string;
  control: ControlFiles;
  /** Envelopes (ids, keys) for events as they are queued. */
  prepare(events: EventInput[]): Durable<SessionState>["outbox"];
  log(line: string): void;
  /** How long a hook waits for the room's answer, seconds. */
  askSeconds: number;
}
