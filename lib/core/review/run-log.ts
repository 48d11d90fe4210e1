import type { Ask, Receipt, StoredEvent } from "@/lib/core/protocol";
import { asksFrom } from "./asks";
import { CALL_EVENTS, callsOf, type RunCall } from "./tool-calls";

/**
 * What the run page reads of a run's log, in windows: a long run (10,000 events) is not
 * loaded whole. The record needs a few events whole (who asked, the plan the run started
 * with, the annotations); the long sections (statuses, messages, the runner's log) come a
 * page at a time, the next on request; each command's audit gets the first events stored
 * between its press and its answer, and how many there were. Pure: the server builds it
 * from windowed reads (lib/server/queries/run-log.ts), a share link's view from the events it has.
 */

/** Events a long section shows at first, and per "show more". */
export const LOG_PAGE = 100;
/** Events a command's audit lists of those stored between its press and its answer. */
export const BETWEEN_SHOWN = 50;

/** The sections that grow with the run, each one event type. */
export const LOG_SECTIONS = { statuses: "run.status", messages: "message.posted", runner: "runner.event" } as const;
export type LogSection = keyof typeof LOG_SECTIONS;

/** Events the record reads whole, few in a run: who asked, the plan it started with, annotations. */
export const HEAD_TYPES = ["run.queued", "run.started", "run.annotated"] as const;

/** A window of a section: its events ascending, and the seq to read on after (null: no more). */
export interface LogWindow {
  events: StoredEvent[];
  next: number | null;
}

/** What a command's audit lists: the events stored between press and answer (the first of them) and their number. */
export interface Between {
  count: number;
  events: { seq: number; type: string; label: string }[];
}

export interface RunLog {
  head: StoredEvent[];
  sections: Record<LogSection, LogWindow>;
  /** By command_id. */
  between: Record<string, Between>;
  /** The run's tool calls ([TOOL6]): those of its first CALL_EVENTS tool events, each under its step. */
  calls: { list: RunCall[]; more: boolean };
  /** The run's asks and their receipts, oldest first ([ASKR1]): the `asks` read model's rows. */
  asks: Ask[];
}

/** What the calls are folded with: the run's start and steps (a run has few), and its first tool events. */
export const STEP_EVENTS = 5000;
export const TOOL_TYPES = ["tool.started", "tool.finished"] as const;

/** The calls of a run from its head, step and tool events (each ascending; the windows the page reads). */
export function callsFrom(head: readonly StoredEvent[], steps: readonly StoredEvent[], tools: readonly StoredEvent[]) {
  return callsOf([...head, ...steps, ...tools].sort((a, b) => a.seq - b.seq));
}

/** The window a section starts with, from events at hand (ascending). */
function windowOf(events: readonly StoredEvent[], type: string, limit: number): LogWindow {
  const all = events.filter((e) => e.type === type);
  const kept = all.slice(0, limit);
  return { events: kept, next: all.length > limit ? kept[kept.length - 1].seq : null };
}

/** The run log from a run's events at hand (ascending): what the windowed reads answer, page size `limit`. */
export function runLogOf(events: readonly StoredEvent[], receipts: readonly Receipt[], limit = LOG_PAGE): RunLog {
  const head = events.filter((e) => (HEAD_TYPES as readonly string[]).includes(e.type));
  const sections = Object.fromEntries(
    Object.entries(LOG_SECTIONS).map(([k, type]) => [k, windowOf(events, type, limit)]),
  ) as Record<LogSection, LogWindow>;
  const between: Record<string, Between> = {};
  for (const r of receipts) {
    const until = r.ack_seq ?? Number.POSITIVE_INFINITY;
    const inside = events.filter((e) => e.seq > r.seq && e.seq < until);
    between[r.command_id] = { count: inside.length, events: inside.slice(0, BETWEEN_SHOWN).map(labelled) };
  }
  const steps = events.filter((e) => e.type === "run.step").slice(0, STEP_EVENTS);
  const tools = events.filter((e) => (TOOL_TYPES as readonly string[]).includes(e.type)).slice(0, CALL_EVENTS);
  const runId = events.find((e) => e.run_id)?.run_id;
  return { head, sections, between, calls: callsFrom(head, steps, tools), asks: runId ? asksFrom(runId, events) : [] };
}

/** An event as the audit lists it. */
export const labelled = (e: StoredEvent) => ({ seq: e.seq, type: e.type, label: labelOf(e) });

/** A line about an event, for lists of what happened. */
function labelOf(e: StoredEvent): string {
  switch (e.type) {
    case "run.status":
      return e.verb_phrase;
    case "run.step":
      return `step ${e.title ?? e.step_id} → ${e.state}`;
    case "message.posted":
      return e.text.length > 120 ? `${e.text.slice(0, 119)}…` : e.text;
    case "run.command":
      return `${e.command}${e.text ? `: ${e.text}` : ""}`;
    case "run.command_delivered":
      return "command delivered";
    case "run.command_acked":
      return `command ${e.result}${e.reason ? `: ${e.reason}` : ""}`;
    case "run.finished":
      return `finished ${e.outcome}`;
    case "runner.event":
      return `${e.kind}: ${e.message}`;
    case "run.notice":
      return `Chips ${e.text}`;
    default:
      return e.type;
  }
}
