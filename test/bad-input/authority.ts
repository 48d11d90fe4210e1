/**
 * Authority: [ENV5] [ENV10] [ENV11] 403 (workspace, actor, types a harness may not send). Part
 * of the corpus `CASES` of ../bad-input.test.ts, which runs the files in a fixed order.
 */
import { newId } from "../../lib/core/protocol";
import { ev, message, post, runStarted } from "../support/api";
import { asA, server, type Case } from "./support";

export const AUTHORITY: Case[] = [
  // ---- [ENV5] [ENV10] [ENV11] 403 -----------------------------------------------------------
  {
    rule: "[ENV5]",
    name: "403: A's harness posts with workspace_id of B",
    send: (w) => asA(w, message(w.A, "hi", { workspace_id: w.B.workspace_id, space_id: w.B.space_id })),
    status: 403,
    code: "forbidden",
    pointer: "/workspace_id",
  },
  {
    rule: "[ENV5]",
    name: "403: B's token with A's ids",
    send: (w) => post(server, w.B.token, message(w.A, "hi")),
    status: 403,
    code: "forbidden",
    pointer: "/workspace_id",
  },
  {
    rule: "[ENV5]",
    name: "403: the admin token (no workspace) posts an event",
    send: (w) => post(server, server.adminToken, message(w.A, "hi")),
    status: 403,
    code: "forbidden",
  },
  {
    rule: "[ENV11]",
    name: "403: harness 2 speaks for an agent registered to harness 1",
    send: (w) => post(server, w.h2.token, message(w.A, "hi", { actor: { kind: "agent", id: w.agent } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/id",
  },
  {
    // Ids are read case-insensitively (§ ids): the lower-case spelling names the same agent.
    rule: "[ENV11]",
    name: "403: harness 2 speaks for harness 1's agent with the agent id's ULID in lower case",
    send: (w) =>
      post(
        server,
        w.h2.token,
        message(w.A, "hi", { actor: { kind: "agent", id: `agt_${w.agent.slice(4).toLowerCase()}` } }),
      ),
    status: 403,
    code: "forbidden",
    pointer: "/actor/id",
  },
  {
    // An agent is named by an agent id: `agt_` and a ULID (§ ids).
    rule: "[ENV11]",
    name: '422: an agent actor whose id is not an agent id ("bob")',
    send: (w) => asA(w, message(w.A, "hi", { actor: { kind: "agent", id: "bob" } })),
    status: 422,
    code: "validation_failed",
    pointer: "/actor/id",
  },
  {
    rule: "[ENV10]",
    name: '403: actor.kind "system" from a harness',
    send: (w) => asA(w, message(w.A, "hi", { actor: { kind: "system", id: "system" } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/kind",
  },
  {
    rule: "[ENV10]",
    name: '403: actor.kind "person" from a harness token',
    send: (w) => asA(w, message(w.A, "hi", { actor: { kind: "person", id: w.A.person_id } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/kind",
  },
  {
    rule: "[ENV10]",
    name: "403: actor harness with another harness's id",
    send: (w) => asA(w, message(w.A, "hi", { actor: { kind: "harness", id: w.h2.harness_id } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/id",
  },
  {
    rule: "[ENV10]",
    name: "403: a harness sends run.command",
    send: (w) => asA(w, ev(w.A, "run.command", { run_id: w.running, command_id: newId("command"), command: "pause" })),
    status: 403,
    code: "forbidden",
    pointer: "/type",
  },
  {
    rule: "[ENV10]",
    name: "403: a harness sends run.command_delivered",
    send: (w) => asA(w, ev(w.A, "run.command_delivered", { run_id: w.running, command_id: newId("command") })),
    status: 403,
    code: "forbidden",
    pointer: "/type",
  },
  {
    rule: "[ENV10]",
    name: "403: runner.event from a plain harness",
    send: (w) =>
      asA(
        w,
        ev(w.A, "runner.event", {
          run_id: w.running,
          sequence: 1,
          kind: "log",
          message: "hello",
          occurred_at: new Date().toISOString(),
          idempotency_key: undefined,
        }),
      ),
    status: 403,
    code: "forbidden",
    pointer: "/type",
  },
  {
    rule: "[ENV10]",
    name: "403: a harness sends room.updated (people only)",
    send: (w) => asA(w, ev(w.A, "room.updated", { space_id: w.A.space_id, revision: 1, intent: "x" })),
    status: 403,
    code: "forbidden",
    pointer: "/type",
  },
  {
    rule: "[ENV10]",
    name: "403: a person's token sends run.started",
    send: (w) => post(server, w.A.person_token, { ...runStarted(w.A), actor: undefined }),
    status: 403,
    code: "forbidden",
    pointer: "/type",
  },
  {
    rule: "[ENV10]",
    name: "403: a person's token claims a harness actor",
    send: (w) => post(server, w.A.person_token, message(w.A, "hi")),
    status: 403,
    code: "forbidden",
    pointer: "/actor",
  },
];
