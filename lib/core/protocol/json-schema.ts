import { z } from "zod";
import { CATALOGUE, EVENT_TYPES, IncomingEvent, requiredEnvelope, type EventType } from "./events";

/** The catalogue type each event schema is, so generation can add what its type requires. */
const typeOf = new Map<unknown, EventType>(EVENT_TYPES.map((t) => [CATALOGUE[t].schema, t]));

/**
 * [SCH1] A served schema requires what ingest requires: besides the fields its zod schema
 * requires, the envelope fields of its type (`requiredEnvelope`: run, space, idempotency key)
 * and `actor` on every type a harness or runner may send, which they must say ([ENV10]). A
 * person may leave `actor` out of any event (the server sets it); a type only people send
 * does not require it.
 */
function requireEnvelope(ctx: { zodSchema: unknown; jsonSchema: { required?: string[] } }) {
  const type = typeOf.get(ctx.zodSchema);
  if (!type) return;
  const actor = CATALOGUE[type].sentBy.some((k) => k !== "person") ? ["actor"] : [];
  ctx.jsonSchema.required = [...(ctx.jsonSchema.required ?? []), ...requiredEnvelope(type), ...actor];
}

const opts = {
  io: "input",
  unrepresentable: "any",
  target: "draft-2020-12",
  override: requireEnvelope,
} as const;

/** JSON Schema of one event type, generated from its zod schema (the one source of truth). */
function eventJsonSchema(type: EventType): Record<string, unknown> {
  return { $id: `/schemas/${type}.json`, title: type, ...z.toJSONSchema(CATALOGUE[type].schema, opts) };
}

/** JSON Schema of any v1 event: the union of every type. */
function envelopeJsonSchema(): Record<string, unknown> {
  return { $id: "/schemas/envelope.json", title: "Chips protocol v1 event", ...z.toJSONSchema(IncomingEvent, opts) };
}

/** Every schema by file name, e.g. `run.status.json`. */
export function allJsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = { "envelope.json": envelopeJsonSchema() };
  for (const t of EVENT_TYPES) out[`${t}.json`] = eventJsonSchema(t);
  return out;
}
