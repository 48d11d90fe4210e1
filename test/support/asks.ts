import { newId } from "../../lib/core/protocol";
import { ev, post, request, type Answer, type Workspace } from "./api";

/** A permission a harness asks on its run ([ASK1]), fields overridable. */
export const permission = (ws: Workspace, runId: string, fields: Record<string, unknown> = {}) =>
  ev(ws, "run.asked", {
    run_id: runId,
    ask_id: newId("ask"),
    kind: "permission",
    tool: "Bash",
    summary: "rm -rf build/",
    command: "rm -rf build/",
    paths: ["build/"],
    source: "sdk",
    ...fields,
  });

/** A question a harness asks on its run, fields overridable. */
export const question = (ws: Workspace, runId: string, fields: Record<string, unknown> = {}) =>
  ev(ws, "run.asked", {
    run_id: runId,
    ask_id: newId("ask"),
    kind: "question",
    question: "Which database should the tests use?",
    options: [
      { id: "pg", label: "PostgreSQL", description: "the real thing" },
      { id: "lite", label: "PGlite" },
    ],
    free_text: true,
    ...fields,
  });

/** Ask on a run with the harness's token; answers the ask id (throws unless stored). */
export async function ask(server: { url: string }, ws: Workspace, body: Record<string, any>, token = ws.token) {
  const r = await post(server, token, body);
  if (r.status !== 201) throw new Error(`ask not stored: ${r.status} ${r.text}`);
  return body.ask_id as string;
}

/** A person's answer through the API (the owner's person token unless another credential is given). */
export function answer(
  server: { url: string },
  runId: string,
  askId: string,
  body: Record<string, unknown>,
  auth: { token?: string; headers?: Record<string, string> },
): Promise<Answer> {
  return request(`${server.url}/api/v1/runs/${runId}/asks/${askId}/answer`, {
    method: "POST",
    token: auth.token,
    headers: { "content-type": "application/json", ...auth.headers },
    body: JSON.stringify({ idempotency_key: `answer-${newId("event")}`, ...body }),
  });
}

/** One ask as the API serves it (optionally long-polled). */
export async function readAsk(server: { url: string }, token: string, runId: string, askId: string, wait = 0) {
  return request(`${server.url}/api/v1/runs/${runId}/asks/${askId}${wait ? `?wait=${wait}` : ""}`, { token });
}

/** Open an invite to `ws` as a browser would: the new person's session cookie (send it with the server's Origin). */
export async function invited(
  server: { url: string; adminToken: string },
  ws: Workspace,
  role: "owner" | "member" | "viewer",
  name: string,
): Promise<{ cookie: string; personId: string; headers: Record<string, string> }> {
  const made = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/invites`, {
    method: "POST",
    token: server.adminToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ role }),
  });
  if (made.status !== 201) throw new Error(`invite not made: ${made.status} ${made.text}`);
  const code = new URL(made.body.url).searchParams.get("code")!;
  const res = await fetch(`${server.url}/invite?code=${code}&name=${encodeURIComponent(name)}`, { redirect: "manual" });
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  const personId = (await request(`${server.url}/api/v1/me`, { headers: { cookie } })).body.id;
  return { cookie, personId, headers: { cookie, origin: server.url } };
}
