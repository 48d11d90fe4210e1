import { ROUTES } from "@/lib/core/routes";
import { call } from "./api";

/**
 * The calls the workspace page's people panel makes (docs/ROLES.md), over lib/browser/api.ts;
 * a refusal is thrown as an ApiError.
 */

type Role = "owner" | "member" | "viewer";

export const revokePerson = (ws: string, person: string) => call(ROUTES.revokePerson, { params: { ws, person } });
export const revokeHarness = (ws: string, harness: string) => call(ROUTES.revokeHarness, { params: { ws, harness } });
export const revokeToken = (ws: string, token: string) => call(ROUTES.revokeToken, { params: { ws, token } });
export const withdrawInvite = (ws: string, invite: string) => call(ROUTES.withdrawInvite, { params: { ws, invite } });
export const changeRole = (ws: string, person: string, role: Role) =>
  call(ROUTES.changeRole, { params: { ws, person }, body: { role } });

/** A new invite link for a role. */
export const makeInvite = async (ws: string, role: Role) =>
  (await call(ROUTES.invite, { params: { ws }, body: { role } })).url;

/** Another token for a harness or runner: shown once. */
export const newHarnessToken = async (ws: string, harness: string) =>
  (await call(ROUTES.harnessToken, { params: { ws, harness } })).token;
