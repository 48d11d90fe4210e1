import { z } from "zod";
import type { StoredEvent } from "./events";
import type { Decision, Receipt, RoomRevision, Run } from "./models";
import type { Ask as AskModel } from "./asks";

/** An ask event as the workspace's people are sent it ([ASK4]): asked, shown, answered, applied, closed. */
export type AskEvent = Extract<
  StoredEvent,
  { type: "run.asked" | "run.ask_shown" | "run.answered" | "run.answer_applied" | "run.ask_closed" }
>;
import type { Task } from "./tasks";
import type { LeaseRenewAck, RunnerHello, RunnerHelloAck, StartRequest } from "./runner-contract";

/**
 * The Socket.IO messages (docs/PROTOCOL.md §4): what a browser sends (zod schemas the server
 * parses) and what it is sent, as the event maps Socket.IO's generics take on both ends — the
 * server (`new Server<…>`), the browser's room feed, the SDK and the runner — with the event
 * names as constants. The runner messages' shapes are the runner contract's
 * (lib/core/protocol/runner-contract.ts).
 */

/** `join {v, space_id, after_seq}`: catch up on a room after a seq, then live ([RT1], [RT2]). */
export const Join = z.object({ v: z.number(), space_id: z.string(), after_seq: z.number().int().min(0) });

/** `history {space_id, before_seq, limit}`: older events of a room ([RT4]). */
export const History = z.object({
  space_id: z.string(),
  before_seq: z.number().int().min(1).nullable().optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});

/** `leave {space_id}`. */
export const Leave = z.object({ space_id: z.string() });

export type JoinAck = { ok: true; head_seq: number } | { ok?: undefined; error: string };
export type HistoryAck<Frames = Frame[]> = { ok: true; events: Frames } | { ok?: undefined; error: string };

/** An event as a room receives it: the stored event plus its space's previous seq ([RT4]). */
export type Frame = StoredEvent & { prev_seq: number };

/** `snapshot`: a join too far behind gets the room's read models and its newest page ([RT4]). */
export interface RoomSnapshot {
  space_id: string;
  head_seq: number;
  runs: Run[];
  receipts: Receipt[];
  /** Its runs' asks and their receipts ([ASK4]). */
  asks: AskModel[];
  events: Frame[];
  /** The room's intent and outcome at its current revision (docs/PROTOCOL.md §6). */
  room: RoomRevision;
  decisions: Decision[];
  /** The room's tasks as the one projection folded them ([TSK1]); their status is derived from the runs. */
  tasks: Task[];
}

/** `presence`: a harness of the workspace came or went ([RUN1]: presence is not a state). */
export interface PresenceChange {
  harness_id: string;
  workspace_id: string | null;
  online: boolean;
  /** Since when (server ms) it has been so. */
  since: number;
}

/** A person with a room open, as its `people` frames name them ([RT5]). */
export interface PresentPerson {
  id: string;
  name: string;
}

/** What changed in a room's people since its sockets were last told: who came, and the ids of who went ([RT5]). */
export interface PeopleChange {
  joined: PresentPerson[];
  left: string[];
}

/** `people`: a socket that just joined gets the whole list; the room's sockets then get what changed ([RT5]). */
export type PeopleFrame = { space_id: string } & ({ people: PresentPerson[] } | PeopleChange);

/** The rooms' namespace (default): the events' names. */
export const ROOM_EVENTS = {
  join: "join",
  history: "history",
  leave: "leave",
  events: "events",
  snapshot: "snapshot",
  people: "people",
  presence: "presence",
  role: "role",
  revoked: "revoked",
  storage: "storage",
  ask: "ask",
} as const;

/**
 * What a room's server sends. `Frames` is how a page of frames travels: the server writes the
 * stored bodies as they are (one raw JSON array), a client reads `Frame[]`; `Ask` is one ask
 * event, sent the same way.
 */
export interface RoomServerToClient<Frames = Frame[], Ask = AskEvent> {
  /** Frames in seq order, each once ([RT1]): a catch-up, then live. */
  [ROOM_EVENTS.events]: (frames: Frames) => void;
  /** A join too far behind: the room's read models and its newest page ([RT4]). */
  [ROOM_EVENTS.snapshot]: (snapshot: Omit<RoomSnapshot, "events"> & { events: Frames }) => void;
  /** Who has the room open: the whole list to a socket that just joined, then what changed ([RT5]). */
  [ROOM_EVENTS.people]: (p: PeopleFrame) => void;
  [ROOM_EVENTS.presence]: (p: PresenceChange) => void;
  /** An owner changed this person's role: the server judges by it from now on. */
  [ROOM_EVENTS.role]: (r: { role: string }) => void;
  /** This person's access was revoked: the server closes the socket next. */
  [ROOM_EVENTS.revoked]: (r: { reason: string }) => void;
  /** The server lost (or found again) its database. */
  [ROOM_EVENTS.storage]: (s: { available: boolean; since: number }) => void;
  /** Each ask event of the person's workspace, whichever room is joined: the inbox and notifications follow it ([ASK4]). */
  [ROOM_EVENTS.ask]: (e: Ask) => void;
}

/** What a room's client sends; the server parses each with the schemas above (untrusted). */
export interface RoomClientToServer<Frames = Frame[]> {
  [ROOM_EVENTS.join]: (join: z.input<typeof Join>, ack: (a: JoinAck) => void) => void;
  [ROOM_EVENTS.history]: (history: z.input<typeof History>, ack: (a: HistoryAck<Frames>) => void) => void;
  [ROOM_EVENTS.leave]: (leave: z.input<typeof Leave>) => void;
}

/** The harnesses' namespace (`/harness`, [RT3]): the events' names (a runner's too). */
export const HARNESS_EVENTS = {
  command: "command",
  runnerHello: "runner.hello",
  runnerStart: "runner.start",
  leaseRenew: "lease.renew",
  answer: "answer",
} as const;

/** What `/harness` sends every harness: its runs' commands; acking the emit is the delivery receipt. */
export interface HarnessServerToClient {
  // Acked with nothing (the ack is the receipt); its optional argument lets a broadcast's ack list who answered.
  [HARNESS_EVENTS.command]: (command: Frame, ack: (received?: undefined) => void) => void;
  /** A person's `run.answered` to one of its asks, or the system's `run.ask_closed`; resent on connect until reported ([ASK4]). */
  [HARNESS_EVENTS.answer]: (answer: Extract<StoredEvent, { type: "run.answered" | "run.ask_closed" }>) => void;
}

/** What `/harness` sends a runner beside its commands ([RT3]): a start, acked on receipt (refusals go on the run). */
export interface RunnerServerToClient extends HarnessServerToClient {
  [HARNESS_EVENTS.runnerStart]: (start: StartRequest, ack: (a: { ok: true }) => void) => void;
}

/** What a runner sends on `/harness`: its hello, and lease renewals. The server parses each (untrusted). */
export interface RunnerClientToServer {
  [HARNESS_EVENTS.runnerHello]: (hello: RunnerHello, ack: (a: RunnerHelloAck) => void) => void;
  [HARNESS_EVENTS.leaseRenew]: (renew: { run_id: string }, ack: (a: LeaseRenewAck) => void) => void;
}
