/**
 * Transport: [HTTP2] 401 / 415 / 413 / 400 (auth, media type, size, JSON text) and the body's
 * shape ([HTTP1]). Part of the corpus `CASES` of ../bad-input.test.ts, which runs the files in
 * a fixed order.
 */
import { message, post, request, runStatus } from "../support/api";
import { asA, MiB, postAlone, range, server, type Case } from "./support";

export const TRANSPORT: Case[] = [
  // ---- [HTTP2] 401 ------------------------------------------------------------------------
  {
    rule: "[HTTP2]",
    name: "401: no Authorization header",
    send: (w) => post(server, undefined, message(w.A, "hi")),
    status: 401,
    code: "unauthorized",
  },
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
      request(`${server.url}/api/v1/events`, {
        method: "POST",
        token: w.A.token,
        body: new TextEncoder().encode(JSON.stringify(message(w.A, "hi"))),
      }),
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
  {
    rule: "[HTTP2]",
    name: "400: broken JSON",
    send: (w) => asA(w, '{"v": 1, "type": '),
    status: 400,
    code: "invalid_json",
  },
  { rule: "[HTTP2]", name: "400: empty body", send: (w) => asA(w, ""), status: 400, code: "invalid_json" },
  {
    rule: "[HTTP2]",
    name: "400: NaN in the JSON text",
    send: (w) =>
      asA(
        w,
        JSON.stringify(runStatus(w.A, w.running, { progress: 0.75 })).replace('"progress":0.75', '"progress":NaN'),
      ),
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
  {
    rule: "[HTTP1]",
    name: "422: body is a JSON array",
    send: (w) => asA(w, [message(w.A, "hi")]),
    status: 422,
    code: "validation_failed",
  },
  {
    rule: "[HTTP1]",
    name: "422: body is a JSON string",
    send: (w) => asA(w, '"hello"'),
    status: 422,
    code: "validation_failed",
  },
  {
    rule: "[HTTP1]",
    name: "422: body is a JSON number",
    send: (w) => asA(w, "42"),
    status: 422,
    code: "validation_failed",
  },
  {
    rule: "[HTTP1]",
    name: "422: body is JSON null",
    send: (w) => asA(w, "null"),
    status: 422,
    code: "validation_failed",
  },
  {
    rule: "[HTTP1]",
    name: "422: `events` is not an array",
    send: (w) => asA(w, { events: message(w.A, "hi") }),
    status: 422,
    code: "validation_failed",
    pointer: "/events",
  },
  {
    rule: "[HTTP1]",
    name: "422: empty batch",
    send: (w) => asA(w, { events: [] }),
    status: 422,
    code: "validation_failed",
    pointer: "/events",
  },
  {
    rule: "[HTTP1]",
    name: "422: a batch entry that is not an object",
    send: (w) => asA(w, { events: [message(w.A, "ok"), 5] }),
    status: 422,
    code: "validation_failed",
    pointer: "/events/1",
  },
];
