/**
 * [HTTP2] precedence: pairs of faults in one request, the first match wins. Part of the corpus
 * `CASES` of ../bad-input.test.ts, which runs the files in a fixed order.
 */
import { newId } from "../../lib/core/protocol";
import { ev, message, post, runStatus } from "../support/api";
import { asA, MiB, postAlone, range, server, type Case } from "./support";

export const PRECEDENCE: Case[] = [
  // ---- [HTTP2] precedence: first match wins --------------------------------------------------
  {
    rule: "[HTTP2]",
    name: "401 before 415: bad token and text/plain",
    send: (w) => post(server, "chips_hrn_bogus", message(w.A, "hi"), { "content-type": "text/plain" }),
    status: 401,
    code: "unauthorized",
  },
  {
    rule: "[HTTP2]",
    name: "401 before 413: no token and a 2 MB body",
    send: (w) => postAlone(undefined, Buffer.from(JSON.stringify(message(w.A, "x".repeat(2 * MiB))))),
    status: 401,
    code: "unauthorized",
  },
  {
    rule: "[HTTP2]",
    name: "415 before 413: text/plain and a 10 MB body",
    send: (w) =>
      postAlone(w.A.token, Buffer.from(JSON.stringify(message(w.A, "x".repeat(10 * MiB)))), {
        "content-type": "text/plain",
      }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    rule: "[HTTP2]",
    name: "415 before 400: text/plain and broken JSON",
    send: (w) => asA(w, "{not json", { "content-type": "text/plain" }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    rule: "[HTTP2]",
    name: "413 before 400: 2 MB of broken JSON",
    send: (w) => postAlone(w.A.token, Buffer.from(`{"v":1,"text":"${"x".repeat(2 * MiB)}`)),
    status: 413,
    code: "payload_too_large",
  },
  {
    rule: "[HTTP2]",
    name: "413 before 403: a batch of 501 events of workspace B",
    send: (w) => asA(w, { events: range(501).map((i) => message(w.B, `m${i}`)) }),
    status: 413,
    code: "payload_too_large",
  },
  {
    rule: "[HTTP2]",
    name: "413 before 422: a batch of 501 events with v 2",
    send: (w) => asA(w, { events: range(501).map((i) => message(w.A, `m${i}`, { v: 2 })) }),
    status: 413,
    code: "payload_too_large",
  },
  {
    rule: "[HTTP2]",
    name: "403 before 422: system actor and progress 1.5 in one event",
    send: (w) => asA(w, runStatus(w.A, w.running, { progress: 1.5, actor: { kind: "system", id: "system" } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/kind",
  },
  {
    rule: "[HTTP2]",
    name: "403 before 422: workspace B and an unknown type",
    send: (w) => asA(w, ev(w.A, "run.exploded", { workspace_id: w.B.workspace_id })),
    status: 403,
    code: "forbidden",
    pointer: "/workspace_id",
  },
  {
    rule: "[HTTP2]",
    name: "403 before 422 across a batch: event 1 invalid, event 4 forbidden",
    send: (w) =>
      asA(w, {
        events: [
          message(w.A, "b0"),
          message(w.A, ""),
          message(w.A, "b2"),
          message(w.A, "b3"),
          ev(w.A, "run.command", { run_id: w.running, command_id: newId("command"), command: "pause" }),
        ],
      }),
    status: 403,
    code: "forbidden",
    pointer: "/events/4/type",
  },
  {
    rule: "[HTTP2]",
    name: "403 (ENV11) before 422: a claimed agent with an empty text",
    send: (w) => post(server, w.h2.token, message(w.A, "", { actor: { kind: "agent", id: w.agent } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/id",
  },
  {
    rule: "[HTTP2]",
    name: "403 (ENV11) before 404: a claimed agent into an unknown space",
    send: (w) =>
      post(server, w.h2.token, message(w.A, "hi", { space_id: newId("space"), actor: { kind: "agent", id: w.agent } })),
    status: 403,
    code: "forbidden",
    pointer: "/actor/id",
  },
  {
    rule: "[HTTP2]",
    name: "422 before 404: unknown run and progress 1.5",
    send: (w) => asA(w, runStatus(w.A, newId("run"), { progress: 1.5 })),
    status: 422,
    code: "validation_failed",
    pointer: "/progress",
  },
  {
    rule: "[HTTP2]",
    name: "422 before 409: v 2 on a finished run",
    send: (w) => asA(w, runStatus(w.A, w.finished, { v: 2 })),
    status: 422,
    code: "unsupported_version",
    pointer: "/v",
  },
  {
    rule: "[HTTP2]",
    name: "422 before 404 across a batch: event 1 names an unknown run, event 4 invalid",
    send: (w) =>
      asA(w, {
        events: [
          message(w.A, "b0"),
          runStatus(w.A, newId("run")),
          message(w.A, "b2"),
          message(w.A, "b3"),
          message(w.A, "", {}),
        ],
      }),
    status: 422,
    code: "validation_failed",
    pointer: "/events/4/text",
  },
  {
    rule: "[HTTP2]",
    name: "idempotency_key_reused before event_id_conflict: stored key, another stored event's id",
    send: (w) => asA(w, message(w.A, "another text", { idempotency_key: w.first.idempotency_key, id: w.second.id })),
    status: 409,
    code: "idempotency_key_reused",
    pointer: "/idempotency_key",
  },
  {
    rule: "[HTTP2]",
    name: "event_id_conflict before 404: a stored id into an unknown space",
    send: (w) => asA(w, message(w.A, "hi", { id: w.first.id, space_id: newId("space") })),
    status: 409,
    code: "event_id_conflict",
    pointer: "/id",
  },
  {
    rule: "[HTTP2]",
    name: "404 before 409: run.status on a finished run, in an unknown space",
    send: (w) => asA(w, runStatus(w.A, w.finished, { space_id: newId("space") })),
    status: 404,
    code: "space_not_found",
    pointer: "/space_id",
  },
];
