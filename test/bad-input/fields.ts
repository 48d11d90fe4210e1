/**
 * Per-type fields: the catalogue's field rules and limits, [ENV9] idempotency_key, [ENV10]
 * actor (422), and `__proto__`. Part of the corpus `CASES` of ../bad-input.test.ts, which runs
 * the files in a fixed order.
 */
import { LIMITS, newId } from "../../lib/core/protocol";
import { ev, message, runStarted, runStatus } from "../support/api";
import { asA, range, withRawMembers, type Case } from "./support";

export const FIELDS: Case[] = [
  // ---- catalogue fields ---------------------------------------------------------------------
  {
    rule: "[run.status]",
    name: "422: progress 1.5",
    send: (w) => asA(w, runStatus(w.A, w.running, { progress: 1.5 })),
    status: 422,
    code: "validation_failed",
    pointer: "/progress",
  },
  {
    rule: "[run.status]",
    name: "422: progress -0.1",
    send: (w) => asA(w, runStatus(w.A, w.running, { progress: -0.1 })),
    status: 422,
    code: "validation_failed",
    pointer: "/progress",
  },
  {
    rule: "[run.status]",
    name: '422: progress "0.5" (a string)',
    send: (w) => asA(w, runStatus(w.A, w.running, { progress: "0.5" })),
    status: 422,
    code: "validation_failed",
    pointer: "/progress",
  },
  {
    rule: "[run.status]",
    name: "422: estimate_seconds -1",
    send: (w) => asA(w, runStatus(w.A, w.running, { estimate_seconds: -1 })),
    status: 422,
    code: "validation_failed",
    pointer: "/estimate_seconds",
  },
  {
    rule: "[run.status]",
    name: "422: verb_phrase missing",
    send: (w) => asA(w, runStatus(w.A, w.running, { verb_phrase: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/verb_phrase",
  },
  {
    rule: "[run.status]",
    name: "422: progress decreasing within a run (0.5 → 0.3)",
    send: (w) => asA(w, runStatus(w.A, w.running, { progress: 0.3 })),
    status: 422,
    code: "validation_failed",
    pointer: "/progress",
  },
  {
    rule: "[run.started]",
    name: "422: goal missing",
    send: (w) => asA(w, runStarted(w.A, newId("run"), { goal: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/goal",
  },
  {
    rule: "[run.started]",
    name: "422: goal empty",
    send: (w) => asA(w, runStarted(w.A, newId("run"), { goal: "" })),
    status: 422,
    code: "validation_failed",
    pointer: "/goal",
  },
  {
    rule: "[run.started]",
    name: `422: goal over the limit (${LIMITS.goal + 1} characters)`,
    send: (w) => asA(w, runStarted(w.A, newId("run"), { goal: "g".repeat(LIMITS.goal + 1) })),
    status: 422,
    code: "validation_failed",
    pointer: "/goal",
  },
  {
    rule: "[run.started]",
    name: "422: plan not an array",
    send: (w) => asA(w, runStarted(w.A, newId("run"), { plan: { step_id: "s1", title: "One" } })),
    status: 422,
    code: "validation_failed",
    pointer: "/plan",
  },
  {
    rule: "[run.started]",
    name: "422: plan with a duplicate step_id",
    send: (w) =>
      asA(
        w,
        runStarted(w.A, newId("run"), {
          plan: [
            { step_id: "s1", title: "One" },
            { step_id: "s1", title: "Again" },
          ],
        }),
      ),
    status: 422,
    code: "validation_failed",
    pointer: "/plan/1/step_id",
  },
  {
    rule: "[run.started]",
    name: `422: plan over the limit (${LIMITS.planSteps + 1} steps)`,
    send: (w) =>
      asA(
        w,
        runStarted(w.A, newId("run"), {
          plan: range(LIMITS.planSteps + 1).map((i) => ({ step_id: `s${i}`, title: `Step ${i}` })),
        }),
      ),
    status: 422,
    code: "validation_failed",
    pointer: "/plan",
  },
  {
    rule: "[run.step]",
    name: '422: run.step with state "running"',
    send: (w) => asA(w, ev(w.A, "run.step", { run_id: w.running, step_id: "s1", state: "running" })),
    status: 422,
    code: "validation_failed",
    pointer: "/state",
  },
  {
    rule: "[run.finished]",
    name: '422: run.finished with outcome "exploded"',
    send: (w) => asA(w, ev(w.A, "run.finished", { run_id: w.running, outcome: "exploded" })),
    status: 422,
    code: "validation_failed",
    pointer: "/outcome",
  },
  {
    rule: "[message.posted]",
    name: `422: message text over the limit (${LIMITS.text + 1} characters)`,
    send: (w) => asA(w, message(w.A, "t".repeat(LIMITS.text + 1))),
    status: 422,
    code: "validation_failed",
    pointer: "/text",
  },
  {
    rule: "[message.posted]",
    name: "422: message text empty",
    send: (w) => asA(w, message(w.A, "")),
    status: 422,
    code: "validation_failed",
    pointer: "/text",
  },

  // ---- [ENV9] idempotency_key ----------------------------------------------------------------
  {
    rule: "[ENV9]",
    name: `422: idempotency_key over ${LIMITS.idempotencyKey} characters`,
    send: (w) => asA(w, message(w.A, "hi", { idempotency_key: "k".repeat(LIMITS.idempotencyKey + 1) })),
    status: 422,
    code: "validation_failed",
    pointer: "/idempotency_key",
  },
  {
    rule: "[ENV9]",
    name: "422: idempotency_key missing",
    send: (w) => asA(w, message(w.A, "hi", { idempotency_key: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/idempotency_key",
  },
  {
    rule: "[ENV9]",
    name: "422: idempotency_key empty",
    send: (w) => asA(w, message(w.A, "hi", { idempotency_key: "" })),
    status: 422,
    code: "validation_failed",
    pointer: "/idempotency_key",
  },

  // ---- [ENV10] actor (422) -------------------------------------------------------------------
  {
    rule: "[ENV10]",
    name: "422: actor missing on a harness's event",
    send: (w) => asA(w, message(w.A, "hi", { actor: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/actor",
  },

  // ---- __proto__ -------------------------------------------------------------------------------
  {
    rule: "[ENV10]",
    name: '422: top-level "__proto__": {"admin": true} on a run.started with no goal',
    send: (w) =>
      asA(w, withRawMembers(runStarted(w.A, newId("run"), { goal: undefined }), '"__proto__":{"admin":true}')),
    status: 422,
    code: "validation_failed",
    pointer: "/goal",
  },
  {
    rule: "[ENV10]",
    name: '422: actor with "__proto__": {"kind": "system"} on a status with progress 1.5',
    send: (w) =>
      asA(
        w,
        JSON.stringify(runStatus(w.A, w.running, { progress: 1.5 })).replace(
          '"actor":{',
          '"actor":{"__proto__":{"kind":"system","admin":true},',
        ),
      ),
    status: 422,
    code: "validation_failed",
    pointer: "/progress",
  },
  {
    rule: "[ENV10]",
    name: "422: actor fields given only through __proto__ are not read",
    send: (w) =>
      asA(
        w,
        JSON.stringify(message(w.A, "hi", { actor: { x: 1 } })).replace(
          '"actor":{"x":1}',
          `"actor":{"__proto__":{"kind":"harness","id":"${w.A.harness_id}"}}`,
        ),
      ),
    status: 422,
    code: "validation_failed",
    pointer: "/actor/kind",
  },
  {
    rule: "[ENV10]",
    name: "422: a whole valid event given only through a top-level __proto__",
    send: (w) => asA(w, `{"__proto__":${JSON.stringify(message(w.A, "hi"))}}`),
    status: 422,
    code: "validation_failed",
  },
];
