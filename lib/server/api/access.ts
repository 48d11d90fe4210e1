import type { Context } from "hono";
import { canonicalId, isId, type Run } from "@/lib/core/protocol";
import { spaceInfo } from "@/lib/server/queries/frames";
import { getRun } from "@/lib/server/queries/runs";
import type { Credential, WorkspaceCredential } from "../credentials";
import { may, refusedBecause, type Action } from "../roles";
import type { ChipsServices } from "../services";
import { fail, type ApiEnv } from "./http";

/**
 * The API's access helpers: every handler scopes its path parameter to the caller's
 * credential here, so "another workspace's" is decided in one place (docs/ROLES.md).
 */

/**
 * The `:ws` path parameter, checked against the caller's credential: `kinds` limits who may
 * call at all, `action` what a person's role must allow. Answers the canonical id or the refusal.
 * [HTTP3] A malformed id is `422` at `/path/ws` for whoever asks, before who may: it names no
 * workspace, so the answer tells nothing about any.
 */
export function workspaceScope(c: Context<ApiEnv>, kinds?: Credential["kind"][], action?: Action): string | Response {
  const raw = c.req.param("ws") ?? "";
  if (!isId("workspace", raw)) return fail("validation_failed", "not a workspace id", "/path/ws");
  const ws = canonicalId(raw);
  const cred = c.get("cred");
  if (action && cred.workspaceId && cred.workspaceId !== ws)
    return fail("forbidden", "this credential belongs to another workspace");
  if (action && !may(cred, action)) return fail("forbidden", refusedBecause(action));
  if (kinds && !kinds.includes(cred.kind)) return fail("forbidden", `this needs a ${kinds.join(" or ")} credential`);
  if (cred.kind !== "admin" && cred.workspaceId !== ws)
    return fail("forbidden", "this credential belongs to another workspace");
  return ws;
}

/** The `:run` path parameter: a run of the caller's workspace (any for the admin), else 404. */
export async function runScope(svc: ChipsServices, c: Context<ApiEnv>): Promise<Run | Response> {
  const id = c.req.param("run") ?? "";
  const run = isId("run", id) ? await getRun(svc.db, canonicalId(id)) : null;
  const cred = c.get("cred");
  if (!run || (cred.kind !== "admin" && run.workspace_id !== cred.workspaceId))
    return fail("run_not_found", "no such run in this workspace");
  return run;
}

/** The `:space` path parameter: a space of the caller's workspace (another's answers like a missing one). */
export async function spaceScope(svc: ChipsServices, c: Context<ApiEnv>) {
  const raw = c.req.param("space") ?? "";
  const info = isId("space", raw) ? await spaceInfo(svc.db, canonicalId(raw)) : null;
  const cred = c.get("cred");
  if (!info || (cred.kind !== "admin" && info.workspaceId !== cred.workspaceId))
    return fail("space_not_found", "no such space in this workspace");
  return { id: canonicalId(raw), workspaceId: info.workspaceId };
}

/**
 * A person who may write (a member or an owner): what only people do — commands, runs,
 * tasks, annotations, share links. `what` says so in the refusal, e.g. "tasks come from people".
 */
export function personWriter(c: Context<ApiEnv>, what: string): WorkspaceCredential | Response {
  const cred = c.get("cred");
  if (cred.kind !== "person") return fail("forbidden", `${what}: use a session or a person token`);
  if (!may(cred, "write")) return fail("forbidden", refusedBecause("write"));
  return cred;
}
