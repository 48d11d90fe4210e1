import type { Hono } from "hono";
import { z } from "zod";
import { harnessIn, listPeople, livePerson, ownerCount, workspaceAccess } from "@/lib/server/queries/people";
import { newToken, storeCredential } from "../credentials";
import { createInvite, withdrawInvite } from "../invites";
import { changeRole, revoke, revokeToken } from "../revoke";
import { ROLES } from "../roles";
import type { ChipsServices } from "../services";
import { workspaceScope } from "./access";
import { fail, json, parseBody, type ApiEnv } from "./http";

const InviteBody = z.object({
  role: z.enum(ROLES),
  /** Single-use (default) or good for anyone until it expires. */
  single_use: z.boolean().default(true),
  expires_in_seconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .default(7 * 24 * 3600),
});

const RoleBody = z.object({ role: z.enum(ROLES) });

/**
 * People and their access (issue 15): who is in a workspace, invites by link with a role,
 * and revoking a person, harness or runner — which stops every session and token of theirs
 * at once, open sockets included, on every node (lib/server/revoke.ts).
 */
export function peopleRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.get("/api/v1/workspaces/:ws/people", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"]);
    if (ws instanceof Response) return ws;
    return json({ people: await listPeople(svc.db, ws) });
  });

  app.post("/api/v1/workspaces/:ws/invites", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, InviteBody, "bad invite", 16 * 1024, {});
    if (input instanceof Response) return input;
    const { id, url, expiresAt } = await createInvite(svc.db, svc.config.publicUrl, {
      workspaceId: ws,
      role: input.data.role,
      singleUse: input.data.single_use,
      expiresInSeconds: input.data.expires_in_seconds,
      createdBy: c.get("cred").subjectId,
    });
    return json(
      { invite_id: id, url, role: input.data.role, single_use: input.data.single_use, expires_at: expiresAt },
      201,
    );
  });

  app.delete("/api/v1/workspaces/:ws/people/:person", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("person");
    const target = await livePerson(svc.db, ws, id);
    if (!target) return fail("not_found", "no such person in this workspace", "/path/person");
    if (target.role === "owner" && (await ownerCount(svc.db, ws)) <= 1)
      return fail("invalid_transition", "the workspace's last owner cannot be revoked", "/path/person");
    await revoke(svc, ws, id);
    return json({ revoked: id });
  });

  // Harnesses and runners with their tokens, for the owner who manages them.
  app.get("/api/v1/workspaces/:ws/harnesses", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    return json({ harnesses: (await workspaceAccess(svc.db, ws)).harnesses });
  });

  // Everything an owner manages on one page: people with their tokens and last use, harnesses and runners with theirs, open invites.
  app.get("/api/v1/workspaces/:ws/access", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    return json(await workspaceAccess(svc.db, ws));
  });

  app.patch("/api/v1/workspaces/:ws/people/:person", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, RoleBody, "bad role change", 16 * 1024, {});
    if (input instanceof Response) return input;
    const id = c.req.param("person");
    const target = await livePerson(svc.db, ws, id);
    if (!target) return fail("not_found", "no such person in this workspace", "/path/person");
    if (target.role === "owner" && input.data.role !== "owner" && (await ownerCount(svc.db, ws)) <= 1)
      return fail("invalid_transition", "the workspace's last owner cannot step down", "/role");
    await changeRole(svc, ws, id, input.data.role);
    return json({ id, role: input.data.role });
  });

  // Withdraw an invite: its link goes to the login page from now on.
  app.delete("/api/v1/workspaces/:ws/invites/:invite", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("invite");
    if (!(await withdrawInvite(svc.db, ws, id)))
      return fail("not_found", "no such open invite in this workspace", "/path/invite");
    return json({ withdrawn: id });
  });

  // Another token for a harness or runner (to rotate one: mint, switch, revoke the old).
  app.post("/api/v1/workspaces/:ws/harnesses/:harness/tokens", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("harness");
    const h = await harnessIn(svc.db, ws, id);
    if (!h) return fail("not_found", "no such harness or runner in this workspace", "/path/harness");
    const kind = h.kind === "runner" ? "runner" : "harness";
    const token = newToken(kind);
    const tokenId = await storeCredential(svc.db, token, { kind, workspaceId: ws, subjectId: id });
    return json({ token_id: tokenId, token, harness_id: id }, 201);
  });

  // One token, leaving its holder's others: what it opened closes at once, on every node.
  app.delete("/api/v1/workspaces/:ws/tokens/:token", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("token");
    if (!(await revokeToken(svc, ws, id)))
      return fail("not_found", "no such live token in this workspace", "/path/token");
    return json({ revoked: id });
  });

  app.delete("/api/v1/workspaces/:ws/harnesses/:harness", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("harness");
    const h = await harnessIn(svc.db, ws, id);
    if (!h) return fail("not_found", "no such harness or runner in this workspace", "/path/harness");
    await revoke(svc, ws, id);
    return json({ revoked: id });
  });
}
