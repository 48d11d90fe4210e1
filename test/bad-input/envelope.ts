/**
 * The envelope: [ENV1] v, [ENV2] type, ids ([ENV3] [ENV5] [ENV6] [ENV7]), and the space / run
 * a type requires. Part of the corpus `CASES` of ../bad-input.test.ts, which runs the files in
 * a fixed order.
 */
import { newId } from "../../lib/core/protocol";
import { ev, message, runStarted, runStatus } from "../support/api";
import { asA, ulidPart, type Case } from "./support";

export const ENVELOPE: Case[] = [
  // ---- [ENV1] v -----------------------------------------------------------------------------
  {
    rule: "[ENV1]",
    name: "422 unsupported_version: v 2",
    send: (w) => asA(w, message(w.A, "hi", { v: 2 })),
    status: 422,
    code: "unsupported_version",
    pointer: "/v",
  },
  {
    rule: "[ENV1]",
    name: '422: v "1" (a string)',
    send: (w) => asA(w, message(w.A, "hi", { v: "1" })),
    status: 422,
    code: "validation_failed",
    pointer: "/v",
  },
  {
    rule: "[ENV1]",
    name: "422: v missing",
    send: (w) => asA(w, message(w.A, "hi", { v: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/v",
  },

  // ---- [ENV2] type --------------------------------------------------------------------------
  {
    rule: "[ENV2]",
    name: "422 unknown_type: type run.exploded",
    send: (w) => asA(w, ev(w.A, "run.exploded", { run_id: w.running })),
    status: 422,
    code: "unknown_type",
    pointer: "/type",
  },
  {
    rule: "[ENV2]",
    name: "422: type missing",
    send: (w) => asA(w, message(w.A, "hi", { type: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/type",
  },
  {
    rule: "[ENV2]",
    name: "422: type is a number",
    send: (w) => asA(w, message(w.A, "hi", { type: 7 })),
    status: 422,
    code: "validation_failed",
    pointer: "/type",
  },

  // ---- ids ----------------------------------------------------------------------------------
  {
    rule: "[ENV3]",
    name: "422: id with the wrong prefix (msg_)",
    send: (w) => asA(w, message(w.A, "hi", { id: `msg_${ulidPart()}` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id of another kind (run_)",
    send: (w) => asA(w, message(w.A, "hi", { id: newId("run") })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id with a 25-character ULID",
    send: (w) => asA(w, message(w.A, "hi", { id: `evt_${ulidPart().slice(0, 25)}` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id with a 27-character ULID",
    send: (w) => asA(w, message(w.A, "hi", { id: `evt_${ulidPart()}0` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id with a 'U' (not Crockford base32)",
    send: (w) => asA(w, message(w.A, "hi", { id: `evt_${ulidPart().slice(0, 25)}U` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id with an 'I' (not Crockford base32)",
    send: (w) => asA(w, message(w.A, "hi", { id: `evt_${ulidPart().slice(0, 10)}I${ulidPart().slice(11)}` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id whose ULID overflows 48 bits (first character 8)",
    send: (w) => asA(w, message(w.A, "hi", { id: `evt_8${ulidPart().slice(1)}` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id with an upper-case prefix (EVT_)",
    send: (w) => asA(w, message(w.A, "hi", { id: `EVT_${ulidPart()}` })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id missing",
    send: (w) => asA(w, message(w.A, "hi", { id: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    rule: "[ENV3]",
    name: "422: id is a number",
    send: (w) => asA(w, message(w.A, "hi", { id: 12345 })),
    status: 422,
    code: "validation_failed",
    pointer: "/id",
  },
  {
    // [HTTP2]: 403 is checked before 422, and a malformed workspace id is not the credential's.
    rule: "[ENV5]",
    name: "403: workspace_id malformed (25-character ULID) is not the credential's workspace",
    send: (w) => asA(w, message(w.A, "hi", { workspace_id: w.A.workspace_id.slice(0, -1) })),
    status: 403,
    code: "forbidden",
    pointer: "/workspace_id",
  },
  {
    rule: "[ENV5]",
    name: "422: workspace_id missing",
    send: (w) => asA(w, message(w.A, "hi", { workspace_id: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/workspace_id",
  },
  {
    rule: "[ENV6]",
    name: "422: space_id with the wrong prefix (room_)",
    send: (w) => asA(w, message(w.A, "hi", { space_id: `room_${w.A.space_id.slice(4)}` })),
    status: 422,
    code: "validation_failed",
    pointer: "/space_id",
  },
  {
    rule: "[ENV6]",
    name: "422: space_id with a 'U'",
    send: (w) => asA(w, message(w.A, "hi", { space_id: `${w.A.space_id.slice(0, -1)}U` })),
    status: 422,
    code: "validation_failed",
    pointer: "/space_id",
  },
  {
    rule: "[ENV7]",
    name: "422: run_id with an 'I'",
    send: (w) => asA(w, runStatus(w.A, `${w.running.slice(0, -1)}I`)),
    status: 422,
    code: "validation_failed",
    pointer: "/run_id",
  },
  {
    rule: "[ENV7]",
    name: "422: run_id empty",
    send: (w) => asA(w, runStatus(w.A, "")),
    status: 422,
    code: "validation_failed",
    pointer: "/run_id",
  },

  // ---- [ENV6] [ENV7] required space / run -------------------------------------------------
  {
    rule: "[ENV7]",
    name: "422: run.status without run_id (requires a run)",
    send: (w) => asA(w, runStatus(w.A, w.running, { run_id: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/run_id",
  },
  {
    rule: "[ENV6]",
    name: "422: message.posted without space_id",
    send: (w) => asA(w, message(w.A, "hi", { space_id: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/space_id",
  },
  {
    rule: "[ENV6]",
    name: "422: run.started without space_id",
    send: (w) => asA(w, runStarted(w.A, newId("run"), { space_id: undefined })),
    status: 422,
    code: "validation_failed",
    pointer: "/space_id",
  },
];
