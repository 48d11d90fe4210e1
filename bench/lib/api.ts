import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { newId, type WorkspaceCreated } from "@/lib/core/protocol";

export type Workspace = WorkspaceCreated;

/**
 * One keep-alive agent per target: open-loop posting needs many sockets in flight.
 *
 * `timeout` drops a pooled socket after 4 s idle, before the server does (Node's server closes
 * an idle keep-alive socket ~5–6 s after its last answer and announces `Keep-Alive: timeout=5`,
 * a hint Node 20's agent ignores when it has no timeout of its own). Without it the pool kept
 * idle sockets forever, and a socket picked for a POST in the instant the server closed it —
 * while the poster's loop was too busy to have read the FIN — got the request written into a
 * closed connection: ECONNRESET (the soak's 2 of 90,000; PERFORMANCE.md, "ECONNRESET").
 */
export const keepAlive = (maxSockets = 64) =>
  new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 4_000 });

/** A transport error (no answer), saying whether it came on a pooled socket reused for this request. */
export class TransportError extends Error {
  constructor(
    readonly code: string,
    readonly reused: boolean,
    message: string,
  ) {
    super(message);
  }
}

export interface Reply {
  status: number;
  body: string;
}

/** A JSON request over the agent; never rejects on an HTTP status, only on a transport error. */
export function request(
  agent: http.Agent,
  url: string,
  method: string,
  token: string | null,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<Reply> {
  const u = new URL(url);
  const data = body === undefined ? undefined : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: {
          ...(data ? { "content-type": "application/json", "content-length": data.length } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${u.pathname} timed out`)));
    req.on("error", (e: NodeJS.ErrnoException) =>
      reject(new TransportError(e.code ?? "", req.reusedSocket, e.message)),
    );
    req.end(data);
  });
}

export function adminToken(dataDir: string): string {
  return fs.readFileSync(path.join(dataDir, "admin-token"), "utf8").trim();
}

export async function createWorkspace(agent: http.Agent, url: string, admin: string): Promise<Workspace> {
  const r = await request(agent, `${url}/api/v1/admin/workspaces`, "POST", admin, {});
  if (r.status >= 300) throw new Error(`create workspace: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Workspace;
}

let keyN = 0;
const runTag = Date.now().toString(36);

/** A message.posted from the workspace's harness. */
export function message(ws: Workspace, text: string) {
  return {
    v: 1,
    type: "message.posted",
    id: newId("event"),
    workspace_id: ws.workspace_id,
    space_id: ws.space_id,
    actor: { kind: "harness", id: ws.harness_id },
    idempotency_key: `bench-${runTag}-${++keyN}`,
    text,
  };
}

/** Any event from the harness (run events: pass run_id and the type's fields). */
export function harnessEvent(ws: Workspace, type: string, fields: Record<string, unknown>) {
  return {
    v: 1,
    type,
    id: newId("event"),
    workspace_id: ws.workspace_id,
    space_id: ws.space_id,
    actor: { kind: "harness", id: ws.harness_id },
    idempotency_key: `bench-${runTag}-${++keyN}`,
    ...fields,
  };
}

/** Post a batch (≤ 500 events); the stored events back. */
export async function postBatch(
  agent: http.Agent,
  url: string,
  token: string,
  events: unknown[],
): Promise<{ seq: number }[]> {
  const r = await request(agent, `${url}/api/v1/events`, "POST", token, { events });
  if (r.status !== 201 && r.status !== 200) throw new Error(`batch: ${r.status} ${r.body.slice(0, 500)}`);
  return (JSON.parse(r.body) as { events: { seq: number }[] }).events;
}

/** `n` plain messages of about 300 bytes each, in batches of 500. The last seq. */
export async function seedMessages(agent: http.Agent, url: string, ws: Workspace, n: number): Promise<number> {
  let last = 0;
  for (let done = 0; done < n;) {
    const k = Math.min(500, n - done);
    const batch = Array.from({ length: k }, (_, i) =>
      message(ws, `seeded message ${done + i + 1}: ${"lorem ipsum dolor sit amet ".repeat(4)}`),
    );
    const stored = await postBatch(agent, url, ws.token, batch);
    last = stored[stored.length - 1].seq;
    done += k;
  }
  return last;
}
