import type { Actor, IncomingEvent, Me, PlanStep, Receipt, Run, StoredEvent, Usage } from "../../core/protocol";

export type { Actor, Me, PlanStep, Receipt, Run, StoredEvent, Usage };

type Filled = "v" | "id" | "idempotency_key" | "actor" | "workspace_id";
type Loose<E> = E extends unknown ? Omit<E, Filled | "ts" | "seq"> & Partial<Pick<E, Filled & keyof E>> : never;

/**
 * An event as a harness writes it: any catalogue event, with the envelope fields the
 * client fills in (`v`, `id`, `idempotency_key`, `actor`, `workspace_id`) optional.
 */
export type EventInput = Loose<IncomingEvent>;

/** An event with its whole envelope, ready to send (and to send again, unchanged). */
export type PreparedEvent = IncomingEvent;

/** A `run.command` as a harness receives it: a person's steer, pause, resume or cancel. */
export type Command = Extract<StoredEvent, { type: "run.command" }>;
