/**
 * Shared setup of the bad-input corpus (../bad-input.test.ts): the `World` the cases refer
 * to, the `Case` shape, and the helpers the case files use to send their requests.
 */
import http from "node:http";
import { newId } from "../../lib/core/protocol";
import { message, post, runStatus, type Answer, type Workspace } from "../support/api";
import type { TestServer } from "../support/server";

/** What the corpus refers to: built once, before the first dump. */
export interface World {
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

export interface Case {
  /** Rule id(s) the case checks, e.g. "[ENV1]". */
  rule: string;
  name: string;
  send: (w: World) => Promise<Answer>;
  status: number;
  code: string;
  /** A pointer the problem's `errors` must hold. */
  pointer?: string;
}

/**
 * The server under test, started by the test file's `beforeAll` (`setServer`). An ES module
 * live binding: the cases read it when they run, after it was set.
 */
export let server: TestServer;
export function setServer(s: TestServer): void {
  server = s;
}

export const MiB = 1024 * 1024;
export const ulidPart = () => newId("event").slice("evt_".length);
export const range = (x: number) => Array.from({ length: x }, (_, i) => i);

/** POST as A's first harness. */
export const asA = (w: World, body: unknown, headers: Record<string, string> = {}) =>
  post(server, w.A.token, body, headers);

/** An event's JSON with extra raw members spliced in first (for `__proto__`, which an object literal cannot carry as data). */
export const withRawMembers = (event: Record<string, unknown>, members: string) =>
  JSON.stringify(event).replace(/^\{/, `{${members},`);

/** A 5-event batch of valid, new events of A with `bad` at index 3. */
export const batchWithBadFourth = (w: World, bad: Record<string, unknown>) => ({
  events: [
    message(w.A, "b0"),
    message(w.A, "b1"),
    runStatus(w.A, w.running, { progress: 0.6 }),
    bad,
    message(w.A, "b4"),
  ],
});

/** Errors a connection of its own raised after its answer was complete (see `postAlone`). */
export const lateSocketErrors: string[] = [];

/**
 * POST a large body on a connection of its own, closed after the answer (`agent: false`).
 * The server answers 401/415/413 before reading such a body and then drops the connection
 * (see the report: a keep-alive connection reused after a 413 is closed under a later
 * request), so these requests must not share a pooled connection with the other cases.
 * `body` is a buffer (sent with content-length) or a number of bytes streamed chunked,
 * with no content-length. The server may close the connection while the rest of the body
 * is still being written: an EPIPE/ECONNRESET after the complete answer is recorded in
 * `lateSocketErrors` (and checked in ../bad-input.test.ts); any error before it fails the
 * request.
 */
export function postAlone(
  token: string | undefined,
  body: Buffer | number,
  headers: Record<string, string> = {},
): Promise<Answer> {
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
          ...(typeof body === "number"
            ? { "transfer-encoding": "chunked" }
            : { "content-length": String(body.byteLength) }),
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
