import { problemAt } from "@/lib/core/protocol";
import { PEOPLE_ROUTES } from "@/lib/core/routes";
import { harnessIn, listPeople, livePerson, workspaceAccess } from "@/lib/server/queries/people";
import { newToken, storeCredential } from "../credentials";
import { createInvite, withdrawInvite } from "../invites";
import { changeRole, revoke, revokeToken } from "../revoke";
import type { ChipsServices } from "../services";
import type { Handlers } from "./adapter";

const noHarness = () => problemAt("not_found", "no such harness or runner in this workspace", "/path/harness");
const noPerson = () => problemAt("not_found", "no such person in this workspace", "/path/person");

/**
 * The handlers of lib/core/routes/people.ts: revoking stops every session and token of the
 * revoked at once, open sockets included, on every node (lib/server/revoke.ts).
 */
export function peopleHandlers(
  svc: Pick<ChipsServices, "access" | "config" | "database" | "db" | "nodeId">,
): Handlers<typeof PEOPLE_ROUTES> {
  return {
    people: async ({ ws }) => ({ status: 200, body: { people: await listPeople(svc.db, ws) } }),
    access: async ({ ws }) => ({ status: 200, body: await workspaceAccess(svc.db, ws) }),
    harnesses: async ({ ws }) => ({ status: 200, body: { harnesses: (await workspaceAccess(svc.db, ws)).harnesses } }),

    invite: async ({ cred, ws, body }) => {
      const { id, url, expiresAt } = await createInvite(svc.db, svc.config.publicUrl, {
        workspaceId: ws,
        role: body.role,
        singleUse: body.single_use,
        expiresInSeconds: body.expires_in_seconds,
        createdBy: cred.subjectId,
      });
      return {
        status: 201,
        body: { invite_id: id, url, role: body.role, single_use: body.single_use, expires_at: expiresAt },
      };
    },
    withdrawInvite: async ({ ws, params }) =>
      (await withdrawInvite(svc.db, ws, params.invite))
        ? { status: 200, body: { withdrawn: params.invite } }
        : problemAt("not_found", "no such open invite in this workspace", "/path/invite"),

    changeRole: async ({ ws, body, params }) => {
      if (!(await livePerson(svc.db, ws, params.person))) return noPerson();
      const outcome = await changeRole(svc, ws, params.person, body.role);
      if (outcome === "last_owner")
        return problemAt("invalid_transition", "the workspace's last owner cannot step down", "/role");
      if (outcome === "gone") return noPerson();
      return { status: 200, body: { id: params.person, role: body.role } };
    },
    revokePerson: async ({ ws, params }) => {
      if (!(await livePerson(svc.db, ws, params.person))) return noPerson();
      const outcome = await revoke(svc, ws, params.person);
      if (outcome === "last_owner")
        return problemAt("invalid_transition", "the workspace's last owner cannot be revoked", "/path/person");
      if (outcome === "gone") return noPerson();
      return { status: 200, body: { revoked: params.person } };
    },

    harnessToken: async ({ ws, params }) => {
      const h = await harnessIn(svc.db, ws, params.harness);
      if (!h) return noHarness();
      const kind = h.kind === "runner" ? "runner" : "harness";
      const token = newToken(kind);
      const tokenId = await storeCredential(svc.db, token, { kind, workspaceId: ws, subjectId: params.harness });
      return { status: 201, body: { token_id: tokenId, token, harness_id: params.harness } };
    },
    revokeHarness: async ({ ws, params }) => {
      if (!(await harnessIn(svc.db, ws, params.harness))) return noHarness();
      if ((await revoke(svc, ws, params.harness)) === "gone") return noHarness();
      return { status: 200, body: { revoked: params.harness } };
    },
    revokeToken: async ({ ws, params }) =>
      (await revokeToken(svc, ws, params.token))
        ? { status: 200, body: { revoked: params.token } }
        : problemAt("not_found", "no such live token in this workspace", "/path/token"),
  };
}
