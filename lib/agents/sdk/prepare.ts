import { ulid } from "ulid";
import { newId } from "../../core/protocol/ids";
import type { PROTOCOL_VERSION } from "../../core/protocol/events";
import { storable } from "../../core/protocol/unicode";
import type { Actor, EventInput, PreparedEvent } from "./types";

/** Who the client speaks as, filled into events that leave these out. */
export interface EnvelopeDefaults {
  workspaceId: string;
  actor: Actor;
}

/** The protocol major sent (checked against lib/core/protocol at compile time; no zod at run time). */
const VERSION: typeof PROTOCOL_VERSION = 1;

/** A fresh idempotency key: a ULID, so keys sort by time and never repeat. */
export function newIdempotencyKey(): string {
  return `sdk-${ulid()}`;
}

/**
 * The event with its envelope complete: `v`, a fresh `evt_` id, a fresh idempotency key,
 * the workspace and the actor, each only where missing. The input is not changed. Fill
 * once, then send the same result on every retry (same id, same key). Text the store cannot
 * hold — U+0000, half a surrogate pair, which the server refuses ([HTTP4]) — is sent as
 * U+FFFD: an agent's output with a stray NUL still reaches the room.
 */
export function prepareEvent(input: EventInput, defaults: EnvelopeDefaults): PreparedEvent {
  const e = storable(input);
  return {
    ...e,
    v: e.v ?? VERSION,
    id: e.id ?? newId("event"),
    idempotency_key: e.idempotency_key ?? newIdempotencyKey(),
    workspace_id: e.workspace_id ?? defaults.workspaceId,
    actor: e.actor ?? defaults.actor,
  } as PreparedEvent;
}

/** True when the event still needs something from the defaults (so the client must know who it is). */
export function needsDefaults(input: EventInput): boolean {
  return input.workspace_id === undefined || input.actor === undefined;
}
