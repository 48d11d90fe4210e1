/**
 * State: [ENV6] [ENV7] 404, [RUN1] [ENV3] [ENV9] 409, and [HTTP1] batches (all-or-nothing,
 * pointer into the batch). Part of the corpus `CASES` of ../bad-input.test.ts, which runs the
 * files in a fixed order.
 */
import { newId } from "../../lib/core/protocol";
import { ev, key, message, runStarted, runStatus } from "../support/api";
import { asA, batchWithBadFourth, range, type Case } from "./support";

export const STATE: Case[] = [
  // ---- [ENV6] [ENV7] 404 ---------------------------------------------------------------------
  {
    rule: "[ENV7]",
    name: "404 run_not_found: run.status for an unknown run",
    send: (w) => asA(w, runStatus(w.A, newId("run"))),
    status: 404,
    code: "run_not_found",
    pointer: "/run_id",
  },
  {
    rule: "[ENV7]",
    name: "404 run_not_found: run.status for a run of workspace B",
    send: (w) => asA(w, runStatus(w.A, w.runOfB)),
    status: 404,
    code: "run_not_found",
    pointer: "/run_id",
  },
  {
    rule: "[ENV6]",
    name: "404 space_not_found: message into an unknown space",
    send: (w) => asA(w, message(w.A, "hi", { space_id: newId("space") })),
    status: 404,
    code: "space_not_found",
    pointer: "/space_id",
  },
  {
    rule: "[ENV6]",
    name: "404 space_not_found: message into a space of workspace B",
    send: (w) => asA(w, message(w.A, "hi", { space_id: w.B.space_id })),
    status: 404,
    code: "space_not_found",
    pointer: "/space_id",
  },

  // ---- [RUN1] [ENV3] [ENV9] 409 ---------------------------------------------------------------
  {
    rule: "[RUN1]",
    name: "409 run_finished: run.status on a finished run",
    send: (w) => asA(w, runStatus(w.A, w.finished)),
    status: 409,
    code: "run_finished",
    pointer: "/run_id",
  },
  {
    rule: "[RUN1]",
    name: "409 run_finished: run.step on a finished run",
    send: (w) => asA(w, ev(w.A, "run.step", { run_id: w.finished, step_id: "s1", state: "done" })),
    status: 409,
    code: "run_finished",
    pointer: "/run_id",
  },
  {
    rule: "[RUN1]",
    name: "409 run_finished: a second run.finished (another key)",
    send: (w) => asA(w, ev(w.A, "run.finished", { run_id: w.finished, outcome: "failed" })),
    status: 409,
    code: "run_finished",
    pointer: "/run_id",
  },
  {
    rule: "[RUN1]",
    name: "409 run_exists: run.started again for a running run with another key",
    send: (w) => asA(w, runStarted(w.A, w.running)),
    status: 409,
    code: "run_exists",
    pointer: "/run_id",
  },
  {
    rule: "[RUN1]",
    name: "409 run_exists: run.started again for a finished run with another key",
    send: (w) => asA(w, runStarted(w.A, w.finished)),
    status: 409,
    code: "run_exists",
    pointer: "/run_id",
  },
  {
    rule: "[ENV9]",
    name: "409 idempotency_key_reused: a stored key with another body",
    send: (w) => asA(w, message(w.A, "another text", { idempotency_key: w.first.idempotency_key })),
    status: 409,
    code: "idempotency_key_reused",
    pointer: "/idempotency_key",
  },
  {
    rule: "[ENV9]",
    name: "409 idempotency_key_reused: a stored key, same id, another body",
    send: (w) => asA(w, { ...w.first, text: "edited" }),
    status: 409,
    code: "idempotency_key_reused",
    pointer: "/idempotency_key",
  },
  {
    rule: "[ENV3]",
    name: "409 event_id_conflict: a stored event id with another body",
    send: (w) => asA(w, message(w.A, "another text", { id: w.first.id })),
    status: 409,
    code: "event_id_conflict",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "409 event_id_conflict: the id of an event of workspace B",
    send: (w) => asA(w, message(w.A, "hi", { id: w.eventOfB.id })),
    status: 409,
    code: "event_id_conflict",
    pointer: "/id",
  },

  // ---- [HTTP1] batches: all-or-nothing, pointer into the batch -------------------------------
  {
    rule: "[HTTP1]",
    name: "422: event 3 of 5 has progress 1.5",
    send: (w) => asA(w, batchWithBadFourth(w, runStatus(w.A, w.running, { progress: 1.5 }))),
    status: 422,
    code: "validation_failed",
    pointer: "/events/3/progress",
  },
  {
    rule: "[HTTP1]",
    name: "422: event 3 of 5 lowers the progress event 2 raised (0.6 → 0.55)",
    send: (w) => asA(w, batchWithBadFourth(w, runStatus(w.A, w.running, { progress: 0.55 }))),
    status: 422,
    code: "validation_failed",
    pointer: "/events/3/progress",
  },
  {
    rule: "[HTTP1]",
    name: "403: event 3 of 5 claims the system actor",
    send: (w) => asA(w, batchWithBadFourth(w, message(w.A, "hi", { actor: { kind: "system", id: "system" } }))),
    status: 403,
    code: "forbidden",
    pointer: "/events/3/actor/kind",
  },
  {
    rule: "[HTTP1]",
    name: "404: event 3 of 5 names an unknown run",
    send: (w) => asA(w, batchWithBadFourth(w, runStatus(w.A, newId("run")))),
    status: 404,
    code: "run_not_found",
    pointer: "/events/3/run_id",
  },
  {
    rule: "[HTTP1]",
    name: "409: event 3 of 5 posts to a finished run",
    send: (w) => asA(w, batchWithBadFourth(w, runStatus(w.A, w.finished))),
    status: 409,
    code: "run_finished",
    pointer: "/events/3/run_id",
  },
  {
    rule: "[HTTP1]",
    name: "409: event 3 of 5 starts again the run event 0 started (nothing of the new run is stored)",
    send: (w) => {
      const run = newId("run");
      return asA(w, {
        events: [
          runStarted(w.A, run),
          message(w.A, "b1"),
          runStatus(w.A, run, { progress: 0.1 }),
          runStarted(w.A, run),
          message(w.A, "b4"),
        ],
      });
    },
    status: 409,
    code: "run_exists",
    pointer: "/events/3/run_id",
  },
  {
    rule: "[HTTP1]",
    name: "409: event 4 of 5 reuses event 0's key with another body",
    send: (w) => {
      const k = key();
      return asA(w, {
        events: [
          message(w.A, "b0", { idempotency_key: k }),
          message(w.A, "b1"),
          message(w.A, "b2"),
          message(w.A, "b3"),
          message(w.A, "other", { idempotency_key: k }),
        ],
      });
    },
    status: 409,
    code: "idempotency_key_reused",
    pointer: "/events/4/idempotency_key",
  },
  {
    rule: "[HTTP1]",
    name: "422: a batch of exactly 500 whose last event has v 2 (500 is within the bound)",
    send: (w) => asA(w, { events: [...range(499).map((i) => message(w.A, `m${i}`)), message(w.A, "last", { v: 2 })] }),
    status: 422,
    code: "unsupported_version",
    pointer: "/events/499/v",
  },
];
