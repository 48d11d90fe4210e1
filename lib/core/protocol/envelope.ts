import { z } from "zod";
import { Actor, chars, idOf } from "./fields";
import { LIMITS } from "./limits";

/** Protocol major version ([ENV1]). */
export const PROTOCOL_VERSION = 1;

/**
 * Fields every event carries on the way in. `ts` and `seq` are server-owned: accepted in
 * the input only so that a client echoing a stored event is not refused, then replaced
 * ([ENV4], [ENV8]). `actor` may be left out by a person: the server sets it.
 */
const envelope = {
  v: z.literal(PROTOCOL_VERSION),
  id: idOf("event"),
  ts: z.unknown().optional(),
  seq: z.unknown().optional(),
  workspace_id: idOf("workspace"),
  space_id: idOf("space").optional(),
  run_id: idOf("run").optional(),
  idempotency_key: chars(LIMITS.idempotencyKey).optional(),
  actor: Actor.optional(),
};

/** One event type's schema: the envelope, its `type`, and its own fields. */
export const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ ...envelope, type: z.literal(type), ...shape });
