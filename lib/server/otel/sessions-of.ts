import { canonicalId, isId } from "@/lib/core/protocol";
import { canonicalJson, sha256 } from "../hash";
import type { Session } from "./facts";
import type { Attrs, LogRecord } from "./records";

/**
 * The run a record goes to ([OTL4]): the run its resource names (`chips.run.id`), else its
 * agent session's; the room its resource names (`chips.space.id`), else the token's default.
 * An id that is not a Chips id is ignored (the session decides), never trusted as text.
 */
export function sessionOf(resource: Attrs, key: string, agent: string, ref?: string, segments = true): Session {
  const run = resource["chips.run.id"];
  const space = resource["chips.space.id"];
  const spaceId = isId("space", space) ? canonicalId(space) : undefined;
  if (isId("run", run))
    return { key: `run:${canonicalId(run)}`, runId: canonicalId(run), spaceId, segments: false, agent, ref };
  return { key, spaceId, segments, agent, ref };
}

/**
 * A record with no id of its own is keyed by what it says: a resend of the same bytes (the
 * only retry measured, Claude Code's) hashes the same ([OTL3]).
 */
export function recordHash(r: LogRecord): string {
  return sha256(canonicalJson({ r: r.resource, s: r.scope, t: r.timeNs, b: r.body ?? null, a: r.attrs })).slice(0, 32);
}
