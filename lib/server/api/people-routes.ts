import { randomBytes } from "node:crypto";
import type { Context, Hono } from "hono";
import { and, asc, count, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { newId, problem, zodErrors } from "@/lib/protocol";
import { credentials, harnesses, invites, persons } from "@/db/schema";
import type { Credential } from "../credentials";
import { sha256 } from "../hash";
import { revoke } from "../revoke";
import { ROLES, type Action } from "../roles";
import type { ChipsServices } from "../services";
import { fail, json, problemResponse, readJson, type ApiEnv } from "./http";

type WorkspaceParam = (c: Context<ApiEnv>, kinds?: Credential["kind"][], action?: Action) => string | Response;

const InviteBody = z.object({
  role: z.enum(ROLES),
  /** Single-use (default) or good for anyone until it expires. */
  single_use: z.boolean().default(true),
  expires_in_seconds: z.number().int().min(60).max(30 * 24 * 3600).default(7 * 24 * 3600),
});

/** The path an invite link opens (lib/server/invite-route.ts redeems it). */
const INVITE_PATH = "/invite";

/**
 * People and their access (issue 15): who is in a workspace, invites by link with a role,
 * and revoking a person, harness or runner — which stops every session and token of theirs
 * at once, open sockets included, on every node (lib/server/revoke.ts).
 */
export function peopleRoutes(app: Hono<ApiEnv>, svc: ChipsServices, workspaceParam: WorkspaceParam) {
  app.get("/api/v1/workspaces/:ws/people", async (c) => {
    const ws = workspaceParam(c, ["admin", "person"]);
    if (ws instanceof Response) return ws;
    const rows = await svc.db
      .select({ id: persons.id, name: persons.name, role: persons.role, created_at: persons.createdAt })
      .from(persons)
      .where(and(eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
      .orderBy(asc(persons.createdAt));
    return json({ people: rows });
  });

  app.post("/api/v1/workspaces/:ws/invites", async (c) => {
    const ws = workspaceParam(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const body = await readJson(c, 16 * 1024);
    if (!body.ok) return body.response;
    const input = InviteBody.safeParse(body.value ?? {});
    if (!input.success) return problemResponse(problem("validation_failed", "bad invite", zodErrors("", input.error)));
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
    return json({ invite_id: id, url, role: input.data.role, single_use: input.data.single_use, expires_at: expiresAt }, 201);
  });

  app.delete("/api/v1/workspaces/:ws/people/:person", async (c) => {
    const ws = workspaceParam(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("person");
    const [target] = await svc.db.select({ role: persons.role }).from(persons).where(and(eq(persons.id, id), eq(persons.workspaceId, ws), isNull(persons.revokedAt))).limit(1);
    if (!target) return fail("not_found", "no such person in this workspace", "/path/person");
    if (target.role === "owner") {
      const [{ n }] = await svc.db.select({ n: count() }).from(persons).where(and(eq(persons.workspaceId, ws), eq(persons.role, "owner"), isNull(persons.revokedAt)));
      if (n <= 1) return fail("invalid_transition", "the workspace's last owner cannot be revoked", "/path/person");
    }
    await revoke(svc, ws, id);
    return json({ revoked: id });
  });

  // Harnesses and runners with their tokens, for the owner who manages them.
  app.get("/api/v1/workspaces/:ws/harnesses", async (c) => {
    const ws = workspaceParam(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const hs = await svc.db.select().from(harnesses).where(eq(harnesses.workspaceId, ws)).orderBy(asc(harnesses.createdAt));
    const tokens = await svc.db
      .select({ subjectId: credentials.subjectId, createdAt: credentials.createdAt, revokedAt: credentials.revokedAt })
      .from(credentials)
      .where(eq(credentials.workspaceId, ws));
    return json({
      harnesses: hs.map((h) => ({
        id: h.id,
        name: h.name,
        kind: h.kind,
        tokens: tokens.filter((t) => t.subjectId === h.id).map((t) => ({ created_at: t.createdAt, revoked: t.revokedAt !== null })),
      })),
    });
  });

  app.delete("/api/v1/workspaces/:ws/harnesses/:harness", async (c) => {
    const ws = workspaceParam(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const id = c.req.param("harness");
    const [h] = await svc.db.select({ id: harnesses.id }).from(harnesses).where(and(eq(harnesses.id, id), eq(harnesses.workspaceId, ws))).limit(1);
    if (!h) return fail("not_found", "no such harness or runner in this workspace", "/path/harness");
    await revoke(svc, ws, id);
    return json({ revoked: id });
  });
}
