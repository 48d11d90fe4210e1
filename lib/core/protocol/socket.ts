import { z } from "zod";
import type { StoredEvent } from "./events";
import type { Decision, Receipt, RoomRevision, Run } from "./models";
import type { Task } from "./tasks";

/**
 * The Socket.IO messages of a room (default namespace, docs/PROTOCOL.md §4): what a browser sends
 * (zod schemas the server parses) and what it is sent (types). The `/harness` namespace's
 * runner messages are the runner contract's (lib/core/protocol/runner-contract.ts).
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
export type HistoryAck = { ok: true; events: Frame[] } | { ok?: undefined; error: string };

/** An event as a room receives it: the stored event plus its space's previous seq ([RT4]). */
export type Frame = StoredEvent & { prev_seq: number };

/** `snapshot`: a join too far behind gets the room's read models and its newest page ([RT4]). */
export interface RoomSnapshot {
  space_id: string;
  head_seq: number;
  runs: Run[];
  receipts: Receipt[];
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
