import { LIMITS, problem, storable, type ProblemError } from "@/lib/core/protocol";
import { KeyedLock } from "@/lib/core/async/keyed-lock";
import type { WorkspaceCredential } from "../credentials";
import { ingest } from "../ingest/post-events";
import { roomsOf } from "../queries/workspace";
import type { ChipsServices } from "../services";
import { claudeFacts, isClaude } from "./claude";
import { codexFacts, isCodex } from "./codex";
import type { Refused, Signal } from "./decode";
import type { Fact, Session } from "./facts";
import { genAiFacts } from "./genai";
import { planSession, storedKey } from "./plan";
import { logRecords, spanRecords } from "./records";
import { runOfSession, seenCalls, storedKeys } from "./sessions";

/**
 * OTLP in ([OTL1]–[OTL6], docs/OTEL.md): a decoded request's records, read as facts, grouped
 * by session and stored through the one ingest path (lib/server/ingest/post-events.ts), so
 * order, dedupe, limits and load refusals are those of `POST /api/v1/events`. One session at
 * a time on this node (its facts are planned against its run as stored); a session's events
 * are all or nothing, and a session refused is counted in the answer's partial success.
 */

type Deps = Pick<ChipsServices, "database" | "writer" | "limiter" | "presence" | "db">;
export type OtlpAnswer = { ok: true; refused: Refused | null } | { ok: false; problem: ProblemError };

/** Refusals the client should retry: the request is answered with them whole (429, 503). */
const RETRY = new Set<ProblemError["code"]>(["rate_limited", "overloaded", "unavailable"]);

export async function ingestOtlp(
  deps: Deps,
  cred: WorkspaceCredential,
  signal: Signal,
  body: Record<string, unknown>,
): Promise<OtlpAnswer> {
  // Telemetry is relayed, not judged: a NUL or half a surrogate pair in an id, a command or
  // its output becomes U+FFFD rather than costing its session's events ([OTL10]).
  body = storable(body);
  const facts: Fact[] = [];
  let refused = 0;
  const why = new Set<string>();
  if (signal === "traces") {
    const read = spanRecords(body);
    if (read.refused) why.add("a span needs a trace id and a span id (not all zeros)");
    refused += read.refused;
    for (const s of read.spans) {
      const f = genAiFacts(s);
      if (f) facts.push(f);
    }
  } else if (signal === "logs") {
    for (const r of logRecords(body)) {
      facts.push(...(isClaude(r) ? claudeFacts(r) : isCodex(r) ? codexFacts(r) : []));
    }
  } // metrics: taken and kept nowhere — both agents send deltas, and usage comes from their logs

  const sessions = new Map<string, { session: Session; facts: Fact[] }>();
  for (const f of facts) {
    const g =
      sessions.get(f.session.key) ?? sessions.set(f.session.key, { session: f.session, facts: [] }).get(f.session.key)!;
    g.facts.push(f);
  }
  for (const { session, facts: group } of sessions.values()) {
    // In time order; a run's end last whatever its clock says (a root span ends with its children).
    group.sort((a, b) => Number(a.t === "end") - Number(b.t === "end") || a.at - b.at || a.tie - b.tie);
    const r = await locks.run(`${cred.workspaceId} ${session.key}`, () => storeSession(deps, cred, session, group));
    if (r.ok) continue;
    if (RETRY.has(r.problem.code)) return r;
    refused += group.length;
    why.add(r.problem.detail);
  }
  return { ok: true, refused: refused ? { count: refused, message: [...why].join("; ") } : null };
}

async function storeSession(
  deps: Deps,
  cred: WorkspaceCredential,
  session: Session,
  facts: Fact[],
  again = false,
): Promise<{ ok: true } | { ok: false; problem: ProblemError }> {
  const ws = cred.workspaceId;
  const stored = await storedKeys(
    deps.database,
    ws,
    facts.map((f) => storedKey(f.key)),
  );
  if (facts.every((f) => stored.has(storedKey(f.key)))) return { ok: true }; // a resend: all of it is stored
  const { runId, run } = await runOfSession(deps.database, ws, cred.subjectId, session);
  if (run?.state === "finished")
    return { ok: false, problem: problem("run_finished", `run ${runId} has finished; its telemetry is not taken`) };
  const spaceId = session.spaceId ?? run?.space_id ?? (await roomsOf(deps.db, ws))[0]?.id;
  if (!spaceId) return { ok: false, problem: problem("space_not_found", "this workspace has no room for the run") };
  const calls = facts.flatMap((f) => (f.t === "call.end" ? [f.callId] : []));
  const seen = run ? await seenCalls(deps.database, runId, calls) : new Set<string>();
  const planned = planSession(session, facts, {
    workspaceId: ws,
    harnessId: cred.subjectId,
    spaceId,
    runId,
    run,
    seen,
    stored,
  });
  for (let i = 0; i < planned.events.length; i += LIMITS.batchEvents) {
    // Storable again: a fact may hold JSON text parsed since (a tool call's arguments).
    const a = await ingest(deps, cred, { events: storable(planned.events.slice(i, i + LIMITS.batchEvents)) });
    if (a.ok) continue;
    // Another request for this session got in first (another node, or a run that just finished):
    // plan once more against what is stored now.
    if (!again && !RETRY.has(a.problem.code)) return storeSession(deps, cred, session, facts, true);
    return a;
  }
  return { ok: true };
}

/** One session at a time on this node: its facts are planned against what its last request stored. */
const locks = new KeyedLock();
