import { expect } from "vitest";
import { newId } from "../../lib/core/protocol";
import { ev, runStarted, type Workspace } from "./api";
import { answer, permission, question } from "./asks";
import { command } from "./harness";

/**
 * Examples for the served schemas' test ([SCH1], test/schemas.test.ts) that the drawn
 * sequences may miss: each is handed to `send`, which posts it as the harness under a label.
 */
type Server = { url: string };
type Send = (label: string, body: unknown) => Promise<void>;

/**
 * An ask's life on a run ([ASK1]–[ASK6]), and what a permission and a question may not
 * carry: each kind's required fields, the other kind's fields, a permission option's
 * decision, a question's way to answer, and option ids (unique: beyond JSON Schema).
 */
export async function askEdges(server: Server, A: Workspace, send: Send) {
  const run = newId("run");
  const allowed = permission(A, run);
  const typed = question(A, run, { options: undefined, free_text: true });
  const twice = [
    { id: "a", label: "A", decision: "allow" },
    { id: "a", label: "A again", decision: "deny" },
  ];
  const cases: [string, unknown][] = [
    ["a run that asks", runStarted(A, run)],
    ["a permission", allowed],
    ["a question answered by text", typed],
    ["a permission left to the terminal if unanswered", permission(A, run, { if_unanswered: "ask_in_terminal" })],
    ["a question with an unknown if_unanswered", question(A, run, { if_unanswered: "wait" })],
    ["a permission without its summary", permission(A, run, { summary: undefined })],
    ["a permission with a question's text", permission(A, run, { question: "why?" })],
    ["a permission with free_text", permission(A, run, { free_text: false })],
    ["a permission option without a decision", permission(A, run, { options: [{ id: "y", label: "Yes" }] })],
    ["a permission with two options of one id", permission(A, run, { options: twice })],
    ["a question without its text", question(A, run, { question: undefined })],
    ["a question with a tool", question(A, run, { tool: "Bash" })],
    ["a question option with a decision", question(A, run, { options: [{ id: "y", label: "Y", decision: "allow" }] })],
    ["a question with no way to answer", question(A, run, { options: undefined, free_text: false })],
    ["a question with no options and no free text", question(A, run, { options: [], free_text: undefined })],
  ];
  for (const [name, sent] of cases) await send(`ask edge: ${name}`, sent);
  const answered = await answer(server, run, allowed.ask_id, { decision: "allow" }, { token: A.person_token });
  expect(answered.status, answered.text).toBe(201);
  await send(
    "ask edge: the harness applied the answer",
    ev(A, "run.answer_applied", { run_id: run, ask_id: allowed.ask_id, result: "applied" }),
  );
  await send(
    "ask edge: the harness closes the question unanswered",
    ev(A, "run.ask_closed", { run_id: run, ask_id: typed.ask_id, reason: "cancelled" }),
  );
}

/** A harness's receipt of a person's command, whether or not the drawn sequences hold one. */
export async function ackEdge(server: Server, A: Workspace, send: Send) {
  const run = newId("run");
  await send("ack edge: a run that takes a steer", runStarted(A, run, { commands: ["steer"] }));
  const steer = await command(server, A, run, "steer", "go on");
  expect(steer.status, steer.text).toBe(201);
  await send(
    "ack edge: the harness applied the steer",
    ev(A, "run.command_acked", { run_id: run, command_id: steer.body.command_id, result: "applied" }),
  );
}
