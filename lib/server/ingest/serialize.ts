import type { IncomingEvent, StoredEvent } from "@/lib/protocol";
import type { Credential } from "../credentials";
import { canonicalJson, sha256 } from "../hash";

const HEAD = [
  "v",
  "type",
  "id",
  "ts",
  "seq",
  "workspace_id",
  "space_id",
  "run_id",
  "idempotency_key",
  "actor",
] as const;

/** A stored event's JSON, envelope first: the exact bytes stored, served and replayed. */
export function serializeEvent(e: StoredEvent): string {
  // The event is a union of typed shapes; its fields are read by name without claiming it is a record.
  const field = (k: string): unknown => Reflect.get(e, k);
  const out: Record<string, unknown> = {};
  for (const k of HEAD) if (field(k) !== undefined) out[k] = field(k);
  for (const k of Object.keys(e)) if (!(k in out) && field(k) !== undefined) out[k] = field(k);
  return JSON.stringify(out);
}

/**
 * "Another body" of [ENV3]/[ENV9]: the event as parsed, without the server-owned `ts`,
 * `seq` and `actor.harness_id`; a person's actor is the one the server sets.
 */
export function bodyHash(e: IncomingEvent, cred: Credential): string {
  const { ts: _ts, seq: _seq, actor, ...rest } = e;
  const who =
    cred.kind === "person" ? { kind: "person", id: cred.subjectId } : actor ? { kind: actor.kind, id: actor.id } : null;
  return sha256(canonicalJson({ ...rest, actor: who }));
}
