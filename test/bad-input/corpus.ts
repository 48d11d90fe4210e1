/**
 * The bad-input corpus as one list, and the world it runs against: used by
 * ../bad-input.test.ts (each case's status and code, nothing changed) and by
 * ../schemas.test.ts (each case against the served JSON Schemas).
 */
import { newId } from "../../lib/core/protocol";
import { ev, message, newHarness, newWorkspace, post, runStarted, runStatus } from "../support/api";
import { AUTHORITY } from "./authority";
import { ENVELOPE } from "./envelope";
import { FIELDS } from "./fields";
import { PRECEDENCE } from "./precedence";
import { STATE } from "./state";
import { server, type Case, type World } from "./support";
import { TRANSPORT } from "./transport";

/**
 * The corpus, in the order it runs: later cases may rely on earlier ones having changed
 * nothing, so keep this order.
 */
export const CASES: Case[] = [...TRANSPORT, ...ENVELOPE, ...FIELDS, ...AUTHORITY, ...STATE, ...PRECEDENCE];

/**
 * The state the corpus runs against, on the server of `setServer`: two workspaces; in A two
 * runs (one running with progress, one finished), messages, an agent registered to harness 1,
 * harness 2 speaking as itself; events in B.
 */
export async function buildWorld(): Promise<World> {
  const A = await newWorkspace(server, { workspace: "A" });
  const B = await newWorkspace(server, { workspace: "B" });
  const h2 = await newHarness(server, A, "second");

  const ok = async (token: string, body: unknown) => {
    const r = await post(server, token, body);
    if (r.status !== 201) throw new Error(`setup event refused: ${r.status} ${r.text}`);
    return r.body.events as Record<string, unknown>[];
  };

  const running = newId("run");
  const finished = newId("run");
  const agent = newId("agent");
  const first = message(A, "first");
  const second = message(A, "second");
  await ok(A.token, first);
  await ok(A.token, {
    events: [runStarted(A, running), runStatus(A, running, { progress: 0.5, estimate_seconds: 30 })],
  });
  await ok(A.token, ev(A, "run.step", { run_id: running, step_id: "s1", state: "active" }));
  await ok(A.token, runStarted(A, finished));
  const finishSent = ev(A, "run.finished", { run_id: finished, outcome: "succeeded", summary: "done" });
  const [finishStored] = await ok(A.token, finishSent);
  await ok(A.token, message(A, "as an agent", { actor: { kind: "agent", id: agent } }));
  await ok(h2.token, message(A, "harness 2 here", { actor: { kind: "harness", id: h2.harness_id } }));
  await ok(A.token, second);
  const runOfB = newId("run");
  const eventOfB = message(B, "hello from B");
  await ok(B.token, eventOfB);
  await ok(B.token, runStarted(B, runOfB));

  return { A, B, h2, running, finished, runOfB, agent, first, second, finishSent, finishStored, eventOfB };
}
