import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import { and, asc, count, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { newId } from "@/lib/protocol";
import { harnesses, invites, persons } from "@/db/schema";
import { workspaceAccess } from "@/lib/queries/people";
import { newToken, storeCredential } from "../credentials";
import { sha256 } from "../hash";
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

/** The path an invite link opens (lib/server/invite-route.ts redeems it). */
const INVITE_PATH = "/invite";

/**
 * People and their access (issue 15): who is in a workspace, invites by link with a role,
 * and revoking a person, harness or runner — which stops every session and token of theirs
 * at once, open sockets included, on every node (lib/server/revoke.ts).
 */
export function peopleRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  const owners = async (ws: string) =>
    (
      await svc.db
        .select({ n: count() })
        .from(persons)
        .where(and(eq(persons.workspaceId, ws), eq(persons.role, "owner"), isNull(persons.revokedAt)))
    )[0].n;

  app.get("/api/v1/workspaces/:ws/people", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"]);
    if (ws instanceof Response) return ws;
    const rows = await svc.db
      .select({ id: persons.id, name: persons.name, role: persons.role, created_at: persons.createdAt })
      .from(persons)
      .where(and(eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
      .orderBy(asc(persons.createdAt));
    return json({ people: rows });
  });

  app.post("/api/v1/workspaces/:ws/invites", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, InviteBody, "bad invite", 16 * 1024, {});
    if (input instanceof Response) return input;
    const secret = randomBytes(24).toString("base64url");
    const id = newId("command").replace(/^cmd_/, "inv_");
    const expiresAt = new Date(Date.now() + input.data.expires_in_seconds * 1000).toISOString();
    await svc.db.insert(invites).values({
      tokenHash: sha256(secret),
      id,
      workspaceId: ws,
      role: input.data.role,
      singleUse: input.data.single_use,
      createdBy: c.get("cred").subjectId,
      expiresAt,
    });
    const url = `${svc.config.publicUrl}${INVITE_PATH}?code=${secret}`;
    return json(
      { invite_id: id, url, role: input.data.role, single_use: input.data.single_use, expires_at: expiresAt },
      201,
    );
  });

  app.delete("/api/v1/workspaces/:ws/people/:person", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("person");
    const [target] = await svc.db
      .select({ role: persons.role })
      .from(persons)
      .where(and(eq(persons.id, id), eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
      .limit(1);
    if (!target) return fail("not_found", "no such person in this workspace", "/path/person");
    if (target.role === "owner" && (await owners(ws)) <= 1)
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
    const [target] = await svc.db
      .select({ role: persons.role })
      .from(persons)
      .where(and(eq(persons.id, id), eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
      .limit(1);
    if (!target) return fail("not_found", "no such person in this workspace", "/path/person");
    if (target.role === "owner" && input.data.role !== "owner" && (await owners(ws)) <= 1)
      return fail("invalid_transition", "the workspace's last owner cannot step down", "/role");
    await changeRole(svc, ws, id, input.data.role);
    return json({ id, role: input.data.role });
  });

  // Withdraw an invite: its link goes to the login page from now on.
  app.delete("/api/v1/workspaces/:ws/invites/:invite", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("invite");
    const gone = await svc.db
      .update(invites)
      .set({ revokedAt: new Date().toISOString() })
      .where(and(eq(invites.id, id), eq(invites.workspaceId, ws), isNull(invites.revokedAt)))
      .returning({ id: invites.id });
    if (!gone.length) return fail("not_found", "no such open invite in this workspace", "/path/invite");
    return json({ withdrawn: id });
  });

  // Another token for a harness or runner (to rotate one: mint, switch, revoke the old).
  app.post("/api/v1/workspaces/:ws/harnesses/:harness/tokens", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("harness");
    const [h] = await svc.db
      .select({ kind: harnesses.kind })
      .from(harnesses)
      .where(and(eq(harnesses.id, id), eq(harnesses.workspaceId, ws)))
      .limit(1);
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
    const [h] = await svc.db
      .select({ id: harnesses.id })
      .from(harnesses)
      .where(and(eq(harnesses.id, id), eq(harnesses.workspaceId, ws)))
      .limit(1);
    if (!h) return fail("not_found", "no such harness or runner in this workspace", "/path/harness");
    await revoke(svc, ws, id);
    return json({ revoked: id });
  });
}
