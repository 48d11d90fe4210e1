import { failureLine, refusalOf, request } from "./api";

/**
 * The calls the workspace page's people panel makes (docs/ROLES.md), over lib/browser/api.ts.
 * Each answers an error line, or null when it went through.
 */

const base = (ws: string) => `/api/v1/workspaces/${encodeURIComponent(ws)}`;

export const revokePerson = (ws: string, id: string) =>
  refusalOf(request("DELETE", `${base(ws)}/people/${encodeURIComponent(id)}`));
export const revokeHarness = (ws: string, id: string) =>
  refusalOf(request("DELETE", `${base(ws)}/harnesses/${encodeURIComponent(id)}`));
export const revokeToken = (ws: string, id: string) =>
  refusalOf(request("DELETE", `${base(ws)}/tokens/${encodeURIComponent(id)}`));
export const withdrawInvite = (ws: string, id: string) =>
  refusalOf(request("DELETE", `${base(ws)}/invites/${encodeURIComponent(id)}`));
export const changeRole = (ws: string, id: string, role: string) =>
  refusalOf(request("PATCH", `${base(ws)}/people/${encodeURIComponent(id)}`, { role }));

const refused = (e: unknown) => ({ error: failureLine(e, "Could not reach Chips.", (s) => `Refused (${s}).`) });

/** A new invite link for a role, or the refusal. */
export async function makeInvite(ws: string, role: string): Promise<{ url: string } | { error: string }> {
  try {
    return { url: (await request<{ url: string }>("POST", `${base(ws)}/invites`, { role })).url };
  } catch (e) {
    return refused(e);
  }
}

/** Another token for a harness or runner: shown once. */
export async function newHarnessToken(ws: string, id: string): Promise<{ token: string } | { error: string }> {
  try {
    return {
      token: (await request<{ token: string }>("POST", `${base(ws)}/harnesses/${encodeURIComponent(id)}/tokens`, {}))
        .token,
    };
  } catch (e) {
    return refused(e);
  }
}
