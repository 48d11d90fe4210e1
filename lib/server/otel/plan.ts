import { createHash } from "node:crypto";
import { clipUtf8, LIMITS, PROTOCOL_VERSION, type Run, type Usage } from "@/lib/core/protocol";
import type { Fact, Session } from "./facts";

/**
 * One session's facts as protocol events, against its run as the store has it ([OTL3]): a
 * fact already stored (its key is) is left out, a call already started or finished is not
 * started or finished again, a step already in the state said is not said again. Pure: the
 * store's answers come in `state`; the events go to the one ingest path.
 */

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A ULID-shaped id drawn from a hash of `seed`: the same seed, the same id ([OTL3]). */
export function hashedId(prefix: string, seed: string): string {
  const h = createHash("sha256").update(seed).digest();
  let bits = BigInt("0x" + h.subarray(0, 16).toString("hex"));
  let out = "";
  for (let i = 0; i < 25; i++) {
    out = CROCKFORD[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  // A ULID's first character encodes at most 7 (its time part is 48 bits).
  return prefix + CROCKFORD[Number(bits & 7n)] + out;
}

/** A fact's key as stored: itself, or — past the protocol's 255 characters — a hash of it. */
export const storedKey = (key: string) =>
  key.length <= LIMITS.idempotencyKey ? key : `otel:h:${createHash("sha256").update(key).digest("hex")}`;

export interface SessionState {
  workspaceId: string;
  harnessId: string;
  /** The room a new run goes in. */
  spaceId: string;
  runId: string;
  run: Run | null;
  /** call_ids of the run that have a tool event. */
  seen: Set<string>;
  /** Fact keys already stored. */
  stored: Set<string>;
}

export type Planned = { events: Record<string, unknown>[]; facts: Fact[] };

const stepIdOf = (title: string) => `p-${createHash("sha256").update(title).digest("hex").slice(0, 12)}`;

export function planSession(session: Session, facts: Fact[], s: SessionState): Planned {
  const fresh: Fact[] = [];
  const keys = new Set<string>();
  for (const f of facts) {
    if (s.stored.has(storedKey(f.key)) || keys.has(f.key)) continue;
    keys.add(f.key);
    fresh.push(f);
  }
  if (!fresh.length) return { events: [], facts: [] };
  const events: Record<string, unknown>[] = [];
  const actor = { kind: "harness", id: s.harnessId };
  const event = (key: string, type: string, fields: Record<string, unknown>) =>
    events.push({
      v: PROTOCOL_VERSION,
      type,
      id: hashedId("evt_", `${s.workspaceId}:${key}`),
      workspace_id: s.workspaceId,
      run_id: s.runId,
      idempotency_key: storedKey(key),
      actor,
      ...fields,
    });

  if (!s.run) {
    const goal =
      fresh.find((f) => f.goal)?.goal ?? `${session.agent} session${session.ref ? ` ${session.ref.slice(0, 8)}` : ""}`;
    event(`otel:start:${s.runId}`, "run.started", {
      space_id: s.spaceId,
      goal,
      commands: [],
      ...(session.ref ? { session_ref: clipUtf8(session.ref, LIMITS.sessionRef) } : {}),
    });
  }
  let usage: Usage = s.run?.usage ?? { input_tokens: 0, output_tokens: 0 };
  const open = new Set((s.run?.tools?.open ?? []).map((o) => o.call_id));
  const plan = new Map((s.run?.plan ?? []).map((p) => [p.step_id, p.state as string]));
  const used: Fact[] = [];
  for (const f of fresh) {
    used.push(f);
    switch (f.t) {
      case "prompt":
        event(f.key, "run.status", { phase: "thinking", verb_phrase: "Thinking…" });
        break;
      case "usage":
        usage = add(usage, f.usage);
        event(f.key, "run.status", { phase: "thinking", verb_phrase: "Thinking…", usage });
        break;
      case "running":
        event(f.key, "run.status", { phase: "tool", verb_phrase: clipUtf8(`Running ${f.tool}…`, LIMITS.verbPhrase) });
        break;
      case "call.end": {
        if (s.seen.has(f.callId) && !open.has(f.callId)) break; // finished before: nothing new
        const whole = !open.has(f.callId); // open: started by another source of the run's events
        s.seen.add(f.callId);
        open.delete(f.callId);
        event(f.key, "tool.finished", {
          call_id: f.callId,
          outcome: f.outcome,
          ...(whole ? { tool: f.tool, summary: f.summary } : {}),
          ...(whole && f.input !== undefined ? { input: f.input } : {}),
          ...(whole && f.startedAt ? { started_at: f.startedAt } : {}),
          ...(f.exitCode !== undefined ? { exit_code: f.exitCode } : {}),
          ...(f.durationMs !== undefined ? { duration_ms: Math.min(f.durationMs, LIMITS.estimateSeconds * 1000) } : {}),
          ...(f.output !== undefined ? { output: f.output } : {}),
          ...(f.outputBytes !== undefined ? { output_bytes: f.outputBytes } : {}),
          ...(f.error ? { error: f.error } : {}),
        });
        break;
      }
      case "plan":
        f.steps.forEach((step, i) => {
          const title = clipUtf8(step.title.trim() || `Step ${i + 1}`, LIMITS.title);
          const id = stepIdOf(title);
          const was = plan.get(id);
          if (was === step.state) return;
          plan.set(id, step.state);
          event(`${f.key}/${i}`, "run.step", {
            step_id: id,
            state: step.state,
            ...(was === undefined ? { title } : {}),
          });
        });
        break;
      case "end":
        event(f.key, "run.finished", {
          outcome: f.outcome,
          ...(f.summary ? { summary: f.summary } : {}),
          ...(f.usage ? { usage: f.usage } : usage.input_tokens || usage.output_tokens ? { usage } : {}),
        });
        return { events, facts: used }; // the run is over: what follows belongs to no run of this request
    }
  }
  return { events, facts: used };
}

function add(a: Usage, b: Usage): Usage {
  const cost = (a.cost_usd ?? 0) + (b.cost_usd ?? 0);
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: (a.cached_input_tokens ?? 0) + (b.cached_input_tokens ?? 0),
    ...(cost > 0 ? { cost_usd: Math.round(cost * 1e6) / 1e6 } : {}),
  };
}
