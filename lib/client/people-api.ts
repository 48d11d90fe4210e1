import { refusal } from "./room-api";

/**
 * The calls the workspace page's people panel makes (docs/ROLES.md), so components never
 * `fetch` themselves. Each answers an error line, or null when it went through.
 */

const base = (ws: string) => `/api/v1/workspaces/${encodeURIComponent(ws)}`;
const send = (url: string, method: string, body?: unknown) =>
  fetch(url, { method, headers: body === undefined ? undefined : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }).catch(() => null);

export const revokePerson = async (ws: string, id: string) => refusal(await send(`${base(ws)}/people/${encodeURIComponent(id)}`, "DELETE"));
export const revokeHarness = async (ws: string, id: string) => refusal(await send(`${base(ws)}/harnesses/${encodeURIComponent(id)}`, "DELETE"));
export const revokeToken = async (ws: string, id: string) => refusal(await send(`${base(ws)}/tokens/${encodeURIComponent(id)}`, "DELETE"));
export const withdrawInvite = async (ws: string, id: string) => refusal(await send(`${base(ws)}/invites/${encodeURIComponent(id)}`, "DELETE"));
export const changeRole = async (ws: string, id: string, role: string) => refusal(await send(`${base(ws)}/people/${encodeURIComponent(id)}`, "PATCH", { role }));

/** A new invite link for a role, or the refusal. */
export async function makeInvite(ws: string, role: string): Promise<{ url: string } | { error: string }> {
  const res = await send(`${base(ws)}/invites`, "POST", { role });
  const refused = await refusal(res);
  return refused ? { error: refused } : { url: ((await res!.json()) as { url: string }).url };
}

/** Another token for a harness or runner: shown once. */
export async function newHarnessToken(ws: string, id: string): Promise<{ token: string } | { error: string }> {
  const res = await send(`${base(ws)}/harnesses/${encodeURIComponent(id)}/tokens`, "POST", {});
  const refused = await refusal(res);
  return refused ? { error: refused } : { token: ((await res!.json()) as { token: string }).token };
}
