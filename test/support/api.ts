import { answerFaults, routeOf } from "./answers";
import type { WorkspaceCreated } from "../../lib/core/protocol/http";
import { newId } from "../../lib/core/protocol";
import { startTestServer, type TestServer } from "./server";

export type Workspace = WorkspaceCreated;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A `POST /api/v1/events` sent through `request`: its headers, its body as sent, and the answer. */
export interface SentEvents {
  headers: Headers;
  body: string;
  answer: Answer;
}
let eventPostTap: ((sent: SentEvents) => void) | null = null;

/**
 * Hands every `POST /api/v1/events` sent through `request` (so `post`, the bad-input corpus,
 * the sequence worlds) to `fn`, until the function it answers is called. test/schemas.test.ts
 * checks each against the served JSON Schemas.
 */
export function tapEventPosts(fn: (sent: SentEvents) => void): () => void {
  eventPostTap = fn;
  return () => {
    eventPostTap = null;
  };
}

export async function request(url: string, init: RequestInit & { token?: string } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const res = await fetch(url, { ...init, headers });
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  // A redirect followed is answered by where it led (a signed object URL).
  const route = res.redirected
    ? routeOf("GET", new URL(res.url).pathname)
    : routeOf(init.method ?? "GET", new URL(url).pathname);
  if (route) {
    const faults = answerFaults(route, res.status, res.headers.get("content-type"), text);
    if (faults.length) throw new Error(`the answer does not fit its route's declaration:\n${faults.join("\n")}`);
  }
  const answer = { status: res.status, headers: res.headers, body, text };
  if (eventPostTap && init.method === "POST" && new URL(url).pathname === "/api/v1/events")
    eventPostTap({ headers, body: typeof init.body === "string" ? init.body : "", answer });
  return answer;
}

/** POST /api/v1/events with a JSON body (a string is sent as is). */
export function post(
  server: { url: string },
  token: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return request(`${server.url}/api/v1/events`, {
    method: "POST",
    token,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A fresh workspace with a room, a harness and its owner, through the admin API. */
export async function newWorkspace(server: TestServer, names: Record<string, string> = {}): Promise<Workspace> {
  const r = await request(`${server.url}/api/v1/admin/workspaces`, {
    method: "POST",
    token: server.adminToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(names),
  });
  if (r.status !== 201) throw new Error(`workspace not created: ${r.status} ${r.text}`);
  return r.body;
}

export async function newHarness(
  server: TestServer,
  ws: Workspace,
  name = "second",
  kind: "harness" | "runner" = "harness",
) {
  const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/harnesses`, {
    method: "POST",
    token: server.adminToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, kind }),
  });
  if (r.status !== 201) throw new Error(`harness not created: ${r.status} ${r.text}`);
  return r.body as { harness_id: string; token: string };
}

export async function readEvents(server: { url: string }, ws: Workspace, after = 0, limit = 1000, token = ws.token) {
  const all: any[] = [];
  for (;;) {
    const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/events?after=${after}&limit=${limit}`, {
      token,
    });
    if (r.status !== 200) throw new Error(`read failed: ${r.status} ${r.text}`);
    all.push(...r.body.events);
    if (r.body.events.length < limit) return all;
    after = r.body.next_after;
  }
}

let keyCounter = 0;
export const key = () => `k-${process.pid}-${Date.now()}-${++keyCounter}`;

/** Event builders: a valid event of each kind for a workspace, fields overridable. */
export function ev(
  ws: Workspace,
  type: string,
  fields: Record<string, unknown> = {},
  actorId = ws.harness_id,
): Record<string, any> {
  return {
    v: 1,
    type,
    id: newId("event"),
    workspace_id: ws.workspace_id,
    actor: { kind: "harness", id: actorId },
    idempotency_key: key(),
    ...fields,
  };
}

export function runStarted(ws: Workspace, runId = newId("run"), fields: Record<string, unknown> = {}) {
  return ev(ws, "run.started", {
    space_id: ws.space_id,
    run_id: runId,
    goal: "Ship the thing",
    plan: [
      { step_id: "s1", title: "One" },
      { step_id: "s2", title: "Two" },
    ],
    ...fields,
  });
}

export const runStatus = (ws: Workspace, runId: string, fields: Record<string, unknown> = {}) =>
  ev(ws, "run.status", { run_id: runId, phase: "working", verb_phrase: "Working…", ...fields });

export const message = (ws: Workspace, text: string, fields: Record<string, unknown> = {}) =>
  ev(ws, "message.posted", { space_id: ws.space_id, text, ...fields });

/** Another room of the workspace (`POST /api/v1/workspaces/:ws/spaces`), as the workspace seen from it. */
export async function newRoom(server: { url: string }, w: Workspace, name = "room"): Promise<Workspace> {
  const r = await request(`${server.url}/api/v1/workspaces/${w.workspace_id}/spaces`, {
    method: "POST",
    token: w.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (r.status !== 201) throw new Error(`room not created: ${r.status} ${r.text}`);
  return { ...w, space_id: r.body.id as string };
}

/** Start a run and return its id. */
export async function startRun(server: { url: string }, ws: Workspace, fields: Record<string, unknown> = {}) {
  const runId = newId("run");
  const r = await post(server, ws.token, runStarted(ws, runId, fields));
  if (r.status !== 201) throw new Error(`run not started: ${r.status} ${r.text}`);
  return runId;
}

/**
 * A test file's server and its first workspace, as most files start:
 * `beforeAll(async () => ({ server, ws } = await serverWithWorkspace()))`.
 */
export async function serverWithWorkspace(
  overrides?: Parameters<typeof startTestServer>[0],
): Promise<{ server: TestServer; ws: Workspace }> {
  const server = await startTestServer(overrides);
  return { server, ws: await newWorkspace(server) };
}
