import { z } from "zod";
import { CATALOGUE, EVENT_TYPES, IncomingEvent, type EventType } from "./events";

const opts = { io: "input", unrepresentable: "any", target: "draft-2020-12" } as const;

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
