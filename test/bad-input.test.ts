/**
 * Bad input: a corpus of malformed requests, each answered with its status and stable code
 * (PROTOCOL.md §1, §2, §4 [HTTP1], [HTTP2]); afterwards an ordered logical dump of every
 * table is identical to the one taken before, and the next valid event gets seq = max + 1.
 */
import http from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS, newId } from "../lib/protocol";
import {
  ev,
  key,
  message,
  newHarness,
  newWorkspace,
  post,
  request,
  runStarted,
  runStatus,
  type Answer,
  type Workspace,
} from "./support/api";
import { dumpDatabase, type Dump } from "./support/dump";
import { startTestServer, type TestServer } from "./support/server";

/** What the corpus refers to: built once, before the first dump. */
interface World {
  A: Workspace;
  B: Workspace;
  /** A second harness of workspace A. */
  h2: { harness_id: string; token: string };
  /** Runs of A: one running (progress 0.5), one finished; a run of B. */
  running: string;
  finished: string;
  runOfB: string;
  /** An agent id registered to A's first harness ([ENV11]). */
  agent: string;
  /** A stored message of A, exactly as it was sent. */
  first: Record<string, unknown>;
  /** Another stored message of A, as sent. */
  second: Record<string, unknown>;
  /** The run.finished of `finished`, as sent and as stored. */
  finishSent: Record<string, unknown>;
  finishStored: Record<string, unknown>;
  /** A stored event of workspace B, as sent. */
  eventOfB: Record<string, unknown>;
}

interface Case {
  /** Rule id(s) the case checks, e.g. "[ENV1]". */
  rule: string;
  name: string;
  send: (w: World) => Promise<Answer>;
  status: number;
  code: string;
  /** A pointer the problem's `errors` must hold. */
  pointer?: string;
}

let server: TestServer;
let world: World;
let before: Dump;
let maxSeqBefore: number;

const MiB = 1024 * 1024;
const ulidPart = () => newId("event").slice("evt_".length);
const range = (x: number) => Array.from({ length: x }, (_, i) => i);

/** POST as A's first harness. */
const asA = (w: World, body: unknown, headers: Record<string, string> = {}) => post(server, w.A.token, body, headers);

/** An event's JSON with extra raw members spliced in first (for `__proto__`, which an object literal cannot carry as data). */
const withRawMembers = (event: Record<string, unknown>, members: string) => JSON.stringify(event).replace(/^\{/, `{${members},`);

/** A 5-event batch of valid, new events of A with `bad` at index 3. */
const batchWithBadFourth = (w: World, bad: Record<string, unknown>) => ({
  events: [message(w.A, "b0"), message(w.A, "b1"), runStatus(w.A, w.running, { progress: 0.6 }), bad, message(w.A, "b4")],
});

/** Errors a connection of its own raised after its answer was complete (see `postAlone`). */
const lateSocketErrors: string[] = [];

/**
 * POST a large body on a connection of its own, closed after the answer (`agent: false`).
 * The server answers 401/415/413 before reading such a body and then drops the connection
 * (see the report: a keep-alive connection reused after a 413 is closed under a later
 * request), so these requests must not share a pooled connection with the other cases.
 * `body` is a buffer (sent with content-length) or a number of bytes streamed chunked,
 * with no content-length. The server may close the connection while the rest of the body
 * is still being written: an EPIPE/ECONNRESET after the complete answer is recorded in
 * `lateSocketErrors` (and checked below); any error before it fails the request.
 */
function postAlone(token: string | undefined, body: Buffer | number, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(`${server.url}/api/v1/events`);
    let answered = false;
    let responded = false;
    const req = http.request(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(typeof body === "number" ? { "transfer-encoding": "chunked" } : { "content-length": String(body.byteLength) }),
          ...headers,
        },
      },
      (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => (answered ? lateSocketErrors.push(`${(e as NodeJS.ErrnoException).code}`) : reject(e)));
        res.on("end", () => {
          answered = true;
          const text = Buffer.concat(chunks).toString("utf8");
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          let parsed: unknown = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = null; // not JSON: the assertions on `body` report it, with `text`
          }
          resolve({ status: res.statusCode!, headers: h, body: parsed, text });
        });
      },
    );
    req.on("error", (e) => (answered ? lateSocketErrors.push(`${(e as NodeJS.ErrnoException).code}`) : reject(e)));
    if (typeof body !== "number") {
      req.end(body);
      return;
    }
    // Chunked: 64 KiB at a time, honouring backpressure, until `body` bytes or an answer.
    const chunk = Buffer.alloc(64 * 1024, "x");
    let sent = 0;
    const pump = () => {
      while (sent < body && !responded && !req.destroyed) {
        sent += chunk.byteLength;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

const CASES: Case[] = [
  // ---- [HTTP2] 401 ------------------------------------------------------------------------
  { rule: "[HTTP2]", name: "401: no Authorization header", send: (w) => post(server, undefined, message(w.A, "hi")), status: 401, code: "unauthorized" },
  {
    rule: "[HTTP2]",
    name: "401: unknown bearer token",
    send: (w) => post(server, `chips_hrn_${"x".repeat(43)}`, message(w.A, "hi")),
    status: 401,
    code: "unauthorized",
  },
  {
    rule: "[HTTP2]",
    name: "401: a valid token under another scheme (Basic)",
    send: (w) => post(server, undefined, message(w.A, "hi"), { authorization: `Basic ${w.A.token}` }),
    status: 401,
    code: "unauthorized",
  },
  {
    rule: "[HTTP2]",
    name: "401: 'Bearer' with no token",
    send: (w) => post(server, undefined, message(w.A, "hi"), { authorization: "Bearer " }),
    status: 401,
    code: "unauthorized",
  },

  // ---- [HTTP2] 415 ------------------------------------------------------------------------
  {
    rule: "[HTTP2]",
    name: "415: content-type text/plain",
    send: (w) => asA(w, message(w.A, "hi"), { "content-type": "text/plain" }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    rule: "[HTTP2]",
    name: "415: no content-type at all",
    send: (w) =>
      request(`${server.url}/api/v1/events`, { method: "POST", token: w.A.token, body: new TextEncoder().encode(JSON.stringify(message(w.A, "hi"))) }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    rule: "[HTTP2]",
    name: "415: content-type application/x-www-form-urlencoded",
    send: (w) => asA(w, message(w.A, "hi"), { "content-type": "application/x-www-form-urlencoded" }),
    status: 415,
    code: "unsupported_media_type",
  },

  // ---- [HTTP2] 413 ------------------------------------------------------------------------
  {
    rule: "[HTTP2]",
    name: "413: a 10 MB body (an event whose text is 10 MB)",
    send: (w) => postAlone(w.A.token, Buffer.from(JSON.stringify(message(w.A, "x".repeat(10 * MiB))))),
    status: 413,
    code: "payload_too_large",
  },
  {
    rule: "[HTTP2]",
    name: "413: a chunked body over 1 MiB with no content-length",
    send: (w) => postAlone(w.A.token, MiB + 128 * 1024),
    status: 413,
    code: "payload_too_large",
  },
  {
    rule: "[HTTP2]",
    name: "413: a batch of 501 valid events",
    send: (w) => asA(w, { events: range(501).map((i) => message(w.A, `m${i}`)) }),
    status: 413,
    code: "payload_too_large",
  },

  // ---- [HTTP2] 400 ------------------------------------------------------------------------
  { rule: "[HTTP2]", name: "400: broken JSON", send: (w) => asA(w, '{"v": 1, "type": '), status: 400, code: "invalid_json" },
  { rule: "[HTTP2]", name: "400: empty body", send: (w) => asA(w, ""), status: 400, code: "invalid_json" },
  {
    rule: "[HTTP2]",
    name: "400: NaN in the JSON text",
    send: (w) => asA(w, JSON.stringify(runStatus(w.A, w.running, { progress: 0.75 })).replace('"progress":0.75', '"progress":NaN')),
    status: 400,
    code: "invalid_json",
  },
  {
    rule: "[HTTP2]",
    name: "400: single-quoted strings",
    send: (w) => asA(w, JSON.stringify(message(w.A, "hi")).replace(/"/g, "'")),
    status: 400,
    code: "invalid_json",
  },
  {
    rule: "[HTTP2]",
    name: "400: a trailing comma",
    send: (w) => asA(w, JSON.stringify(message(w.A, "hi")).replace(/\}$/, ",}")),
    status: 400,
    code: "invalid_json",
  },
  {
    rule: "[HTTP2]",
    name: "400: two JSON documents back to back",
    send: (w) => asA(w, JSON.stringify(message(w.A, "hi")) + JSON.stringify(message(w.A, "hi"))),
    status: 400,
    code: "invalid_json",
  },

  // ---- body shape -------------------------------------------------------------------------
  { rule: "[HTTP1]", name: "422: body is a JSON array", send: (w) => asA(w, [message(w.A, "hi")]), status: 422, code: "validation_failed" },
  { rule: "[HTTP1]", name: "422: body is a JSON string", send: (w) => asA(w, '"hello"'), status: 422, code: "validation_failed" },
  { rule: "[HTTP1]", name: "422: body is a JSON number", send: (w) => asA(w, "42"), status: 422, code: "validation_failed" },
  { rule: "[HTTP1]", name: "422: body is JSON null", send: (w) => asA(w, "null"), status: 422, code: "validation_failed" },
  {
    rule: "[HTTP1]",
    name: "422: `events` is not an array",
    send: (w) => asA(w, { events: message(w.A, "hi") }),
    status: 422,
    code: "validation_failed",
    pointer: "/events",
  },
  { rule: "[HTTP1]", name: "422: empty batch", send: (w) => asA(w, { events: [] }), status: 422, code: "validation_failed", pointer: "/events" },
  {
    rule: "[HTTP1]",
    name: "422: a batch entry that is not an object",
    send: (w) => asA(w, { events: [message(w.A, "ok"), 5] }),
    status: 422,
    code: "validation_failed",
    pointer: "/events/1",
  },

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
  { rule: "[ENV3]", name: "422: id missing", send: (w) => asA(w, message(w.A, "hi", { id: undefined })), status: 422, code: "validation_failed", pointer: "/id" },
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
    send: (w) => asA(w, runStarted(w.A, newId("run"), { plan: range(LIMITS.planSteps + 1).map((i) => ({ step_id: `s${i}`, title: `Step ${i}` })) })),
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
    send: (w) => asA(w, withRawMembers(runStarted(w.A, newId("run"), { goal: undefined }), '"__proto__":{"admin":true}')),
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
    send: (w) => asA(w, JSON.stringify(message(w.A, "hi", { actor: { x: 1 } })).replace('"actor":{"x":1}', `"actor":{"__proto__":{"kind":"harness","id":"${w.A.harness_id}"}}`)),
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
    send: (w) => post(server, w.h2.token, message(w.A, "hi", { actor: { kind: "agent", id: `agt_${w.agent.slice(4).toLowerCase()}` } })),
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
        ev(w.A, "runner.event", { run_id: w.running, sequence: 1, kind: "log", message: "hello", occurred_at: new Date().toISOString(), idempotency_key: undefined }),
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
      return asA(w, { events: [runStarted(w.A, run), message(w.A, "b1"), runStatus(w.A, run, { progress: 0.1 }), runStarted(w.A, run), message(w.A, "b4")] });
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
      return asA(w, { events: [message(w.A, "b0", { idempotency_key: k }), message(w.A, "b1"), message(w.A, "b2"), message(w.A, "b3"), message(w.A, "other", { idempotency_key: k })] });
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
    send: (w) => postAlone(w.A.token, Buffer.from(JSON.stringify(message(w.A, "x".repeat(10 * MiB)))), { "content-type": "text/plain" }),
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
        events: [message(w.A, "b0"), message(w.A, ""), message(w.A, "b2"), message(w.A, "b3"), ev(w.A, "run.command", { run_id: w.running, command_id: newId("command"), command: "pause" })],
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
    send: (w) => post(server, w.h2.token, message(w.A, "hi", { space_id: newId("space"), actor: { kind: "agent", id: w.agent } })),
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
    send: (w) => asA(w, { events: [message(w.A, "b0"), runStatus(w.A, newId("run")), message(w.A, "b2"), message(w.A, "b3"), message(w.A, "", {})] }),
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

beforeAll(async () => {
  server = await startTestServer();
  const A = await newWorkspace(server, { workspace: "A" });
  const B = await newWorkspace(server, { workspace: "B" });
  const h2 = await newHarness(server, A, "second");

  const ok = async (token: string, body: unknown) => {
    const r = await post(server, token, body);
    if (r.status !== 201) throw new Error(`setup event refused: ${r.status} ${r.text}`);
    return r.body.events as Record<string, unknown>[];
  };

  // A non-trivial state: two runs (one running with progress, one finished), messages,
  // an agent registered to harness 1, harness 2 speaking as itself, and events in B.
  const running = newId("run");
  const finished = newId("run");
  const agent = newId("agent");
  const first = message(A, "first");
  const second = message(A, "second");
  await ok(A.token, first);
  await ok(A.token, { events: [runStarted(A, running), runStatus(A, running, { progress: 0.5, estimate_seconds: 30 })] });
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

  world = { A, B, h2, running, finished, runOfB, agent, first, second, finishSent, finishStored, eventOfB };

  const [{ max }] = await server.chips.services.database.query<{ max: number | string | null }>(
    sql`select max(seq) as max from events where workspace_id = ${A.workspace_id}`,
  );
  maxSeqBefore = Number(max);
  before = await dumpDatabase(server.chips.services.database);
});
afterAll(() => server?.close());

describe("bad input: the state before the corpus", () => {
  it("the dump covers every table, with workspaces.seq_head, and the state is non-trivial", () => {
    expect(Object.keys(before)).toEqual(expect.arrayContaining(["workspaces", "spaces", "harnesses", "credentials", "agents", "events", "runs", "run_events"]));
    expect(maxSeqBefore).toBeGreaterThanOrEqual(9);
    const wsA = before.workspaces.map((r) => JSON.parse(r)).find((r) => r.id === world.A.workspace_id);
    expect(wsA.seq_head).toBe(maxSeqBefore);
    expect(before.agents.map((r) => JSON.parse(r))).toEqual([expect.objectContaining({ id: world.agent, harness_id: world.A.harness_id })]);
  });
});

describe("[HTTP2] bad input: each malformed request gets its status and code", () => {
  it(`the corpus holds at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    it(`${c.rule} ${c.name}`, async () => {
      const r = await c.send(world);
      const context = `${r.status} ${r.headers.get("content-type")} ${r.text.slice(0, 600)}`;
      expect({ status: r.status, code: r.body?.code }, context).toEqual({ status: c.status, code: c.code });
      expect(r.headers.get("content-type") ?? "", context).toMatch(/^application\/problem\+json(;|$)/);
      expect(r.body, context).toEqual(
        expect.objectContaining({
          type: expect.any(String),
          title: expect.any(String),
          status: c.status,
          detail: expect.any(String),
          code: c.code,
        }),
      );
      expect(r.body.type.length, context).toBeGreaterThan(0);
      expect(r.body.title.length, context).toBeGreaterThan(0);
      if (c.code === "validation_failed") {
        expect(Array.isArray(r.body.errors) && r.body.errors.length > 0, context).toBe(true);
        for (const e of r.body.errors) expect(e, context).toEqual({ pointer: expect.any(String), message: expect.any(String) });
      }
      if (c.pointer !== undefined) {
        expect((r.body.errors ?? []).map((e: { pointer: string }) => e.pointer), context).toContain(c.pointer);
      }
    });
  }

  it("[HTTP2] a replay of a known key wins over run_finished: 200 with the stored event (ts and seq sent are ignored)", async () => {
    const r = await post(server, world.A.token, { ...world.finishSent, ts: "2000-01-01T00:00:00Z", seq: 999_999 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ events: [world.finishStored] });
  });

  it("connections of their own failed, if at all, only after their answer, and only by the server closing them", () => {
    for (const code of lateSocketErrors) expect(["EPIPE", "ECONNRESET"]).toContain(code);
  });

  it("no request polluted Object.prototype", () => {
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(({} as Record<string, unknown>).kind).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

describe("[HTTP1] [ENV8] bad input: afterwards nothing changed", () => {
  it("the ordered logical dump of every table equals the one taken before", async () => {
    const after = await dumpDatabase(server.chips.services.database);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    // Every table that differs, with the rows it gained and lost: {} when nothing changed.
    const changed: Record<string, { added: string[]; removed: string[] }> = {};
    for (const table of Object.keys(before)) {
      const was = new Set(before[table]);
      const now = new Set(after[table]);
      const added = after[table].filter((r) => !was.has(r));
      const removed = before[table].filter((r) => !now.has(r));
      if (added.length || removed.length) changed[table] = { added, removed };
    }
    expect(changed).toEqual({});
    // And exactly equal, order included.
    expect(after).toEqual(before);
  });

  it("[ENV8] the next valid event gets seq = previous max + 1", async () => {
    const r = await post(server, world.A.token, message(world.A, "after the corpus"));
    expect(r.status, r.text).toBe(201);
    expect(r.body.events).toHaveLength(1);
    expect(r.body.events[0].seq).toBe(maxSeqBefore + 1);
    const [{ seq_head }] = await server.chips.services.database.query<{ seq_head: number | string }>(
      sql`select seq_head from workspaces where id = ${world.A.workspace_id}`,
    );
    expect(Number(seq_head)).toBe(maxSeqBefore + 1);
  });
});
