import {
  canonicalId,
  isId,
  LIMITS,
  parseEvent,
  problem,
  type IncomingEvent,
  type ProblemError,
} from "@/lib/core/protocol";
import type { Database } from "@/db/client";
import { agentOwners, eventsByKey } from "@/db/ingest-sql";
import type { Credential } from "../credentials";
import { authorizeRaw, requireActor } from "./authorize";
import type { RateLimiter } from "./rate-limit";
import { bodyHash } from "./serialize";
import type { IngestWriter } from "./writer";

export type IngestAnswer = { ok: true; status: 200 | 201; body: string } | { ok: false; problem: ProblemError };

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * POST /api/v1/events after the transport checks (401, 415, 413 by size, 400): the batch
 * bound, then 403, then 422 — each across the whole request in that order ([HTTP2]) —
 * then the writer for everything that needs the store.
 */
export async function ingest(
  deps: {
    database: Database;
    writer: IngestWriter;
    limiter: RateLimiter;
    presence?: { seen(id: string, workspaceId: string): void };
  },
  cred: Credential,
  body: unknown,
): Promise<IngestAnswer> {
  if (cred.kind === "harness" || cred.kind === "runner") deps.presence?.seen(cred.subjectId, cred.workspaceId);
  let raws: unknown[];
  let pointers: string[];
  if (isObject(body) && "events" in body) {
    if (!Array.isArray(body.events)) return fail("validation_failed", "events must be an array", "/events");
    if (body.events.length > LIMITS.batchEvents) {
      return {
        ok: false,
        problem: problem(
          "payload_too_large",
          `a batch holds at most ${LIMITS.batchEvents} events; this one has ${body.events.length}`,
        ),
      };
    }
    if (body.events.length === 0) return fail("validation_failed", "a batch needs at least one event", "/events");
    raws = body.events;
    pointers = raws.map((_, i) => `/events/${i}`);
  } else {
    raws = [body];
    pointers = [""];
  }

  for (let i = 0; i < raws.length; i++) {
    const denied = authorizeRaw(raws[i], cred, pointers[i]);
    if (denied) return { ok: false, problem: denied };
  }
  const claimed = await agentClaims(deps.database, cred, raws, pointers);
  if (claimed) return { ok: false, problem: claimed };
  const parsed: IncomingEvent[] = [];
  for (let i = 0; i < raws.length; i++) {
    const missing = requireActor(raws[i], cred, pointers[i]);
    const r = parseEvent(raws[i], pointers[i]);
    if (!r.ok) return { ok: false, problem: r.problem };
    if (missing) return { ok: false, problem: missing };
    parsed.push(r.event);
  }
  // Not awaited here: this frame, which holds the request's parsed JSON (`body`, `raws`),
  // ends now, so that tree is garbage while the commit is under way; an async function's
  // locals stay reachable until it returns, and every scavenge until then would copy them.
  return store(deps, cred, parsed, pointers);
}

/** The validated events to the writer (or the rate limiter's refusal), and the answer. */
async function store(
  deps: { database: Database; writer: IngestWriter; limiter: RateLimiter },
  cred: Credential,
  parsed: IncomingEvent[],
  pointers: string[],
): Promise<IngestAnswer> {
  const hashes = parsed.map((e) => bodyHash(e, cred));
  const workspaceId = parsed[0].workspace_id;

  const limited = deps.limiter.take(credKey(cred), parsed.length);
  if (!limited.ok) {
    const replay = await replayOnly(deps.database, workspaceId, parsed, hashes);
    if (replay) return replay;
    return {
      ok: false,
      problem: {
        ...problem("rate_limited", "too many events from this credential; slow down"),
        retryAfter: limited.retryAfter,
      },
    };
  }
  const r = await deps.writer.submit(workspaceId, { credential: cred, events: parsed, hashes, pointers });
  if (!r.ok) {
    if (r.problem.code === "overloaded") {
      const replay = await replayOnly(deps.database, workspaceId, parsed, hashes);
      if (replay) return replay;
    }
    return r;
  }
  return { ok: true, status: r.created ? 201 : 200, body: `{"events":[${r.bodies.join(",")}]}` };
}

/** When refusing for load, a request that is wholly a replay is still answered ([HTTP2]). */
async function replayOnly(
  database: Database,
  workspaceId: string,
  parsed: IncomingEvent[],
  hashes: string[],
): Promise<IngestAnswer | null> {
  const keys = parsed.map((e) => e.idempotency_key);
  if (keys.some((k) => !k)) return null;
  const byKey = await eventsByKey(database.run, workspaceId, [...new Set(keys as string[])]);
  const bodies: string[] = [];
  for (let i = 0; i < parsed.length; i++) {
    const row = byKey.get(keys[i]!);
    if (!row || row.hash !== hashes[i]) return null;
    bodies.push(row.body);
  }
  return { ok: true, status: 200, body: `{"events":[${bodies.join(",")}]}` };
}

/**
 * [ENV11] before 422 ([HTTP2]): an agent id already registered to another harness is
 * refused before the body's fields are checked. (An id first claimed by two harnesses at
 * once is settled in the writer, which holds the registry under the workspace's lock.)
 */
async function agentClaims(
  database: Database,
  cred: Credential,
  raws: unknown[],
  pointers: string[],
): Promise<ProblemError | null> {
  if (cred.kind !== "harness" && cred.kind !== "runner") return null;
  const ids = new Map<string, string>();
  raws.forEach((r, i) => {
    const a = (r as { actor?: { kind?: unknown; id?: unknown } } | null)?.actor;
    if (a && a.kind === "agent" && isId("agent", a.id)) ids.set(canonicalId(a.id), pointers[i]);
  });
  if (!ids.size) return null;
  const owners = await agentOwners(database.run, cred.workspaceId, [...ids.keys()]);
  const stolen = [...ids.keys()].find((id) => owners.has(id) && owners.get(id) !== cred.subjectId);
  if (!stolen) return null;
  const detail = "this agent id is registered to another harness";
  return problem("forbidden", detail, [{ pointer: `${ids.get(stolen)}/actor/id`, message: detail }]);
}

const credKey = (c: Credential) => `${c.kind}:${c.subjectId}`;

function fail(code: ProblemError["code"], detail: string, pointer: string): IngestAnswer {
  return { ok: false, problem: problem(code, detail, [{ pointer, message: detail }]) };
}
