import { ROUTES } from "@/lib/core/routes";
import { call, failureLine, refusalOf } from "./api";

/**
 * The calls the workspace page's people panel makes (docs/ROLES.md), over lib/browser/api.ts.
 * Each answers an error line, or null when it went through.
 */

export const revokePerson = (ws: string, person: string) =>
  refusalOf(call(ROUTES.revokePerson, { params: { ws, person } }));
export const revokeHarness = (ws: string, harness: string) =>
  refusalOf(call(ROUTES.revokeHarness, { params: { ws, harness } }));
export const revokeToken = (ws: string, token: string) =>
  refusalOf(call(ROUTES.revokeToken, { params: { ws, token } }));
export const withdrawInvite = (ws: string, invite: string) =>
  refusalOf(call(ROUTES.withdrawInvite, { params: { ws, invite } }));
export const changeRole = (ws: string, person: string, role: "owner" | "member" | "viewer") =>
  refusalOf(call(ROUTES.changeRole, { params: { ws, person }, body: { role } }));

const refused = (e: unknown) => ({ error: failureLine(e, "Could not reach Chips.", (s) => `Refused (${s}).`) });

/** A new invite link for a role, or the refusal. */
export async function makeInvite(
  ws: string,
  role: "owner" | "member" | "viewer",
): Promise<{ url: string } | { error: string }> {
  try {
    return { url: (await call(ROUTES.invite, { params: { ws }, body: { role } })).url };
  } catch (e) {
    return refused(e);
  }
}

/** Another token for a harness or runner: shown once. */
export async function newHarnessToken(ws: string, harness: string): Promise<{ token: string } | { error: string }> {
  try {
    return { token: (await call(ROUTES.harnessToken, { params: { ws, harness } })).token };
  } catch (e) {
    return refused(e);
  }
}
