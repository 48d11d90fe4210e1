import type { Context } from "hono";
import { canonicalId, isId, type Run } from "@/lib/protocol";
import type { Credential } from "../credentials";
import { getRun } from "@/lib/queries/runs";
import type { Action } from "../roles";
import type { ChipsServices } from "../services";
import { fail, type ApiEnv } from "./http";

/** The `:ws` path parameter checked against the caller's credential (app.ts makes it). */
export type WorkspaceParam = (c: Context<ApiEnv>, kinds?: Credential["kind"][], action?: Action) => string | Response;

/** The `:run` path parameter: a run of the caller's workspace (any for the admin), else 404. */
export async function runParam(svc: ChipsServices, c: Context<ApiEnv>): Promise<Run | Response> {
  const id = c.req.param("run") ?? "";
  const run = isId("run", id) ? await getRun(svc.db, canonicalId(id)) : null;
  const cred = c.get("cred");
  if (!run || (cred.kind !== "admin" && run.workspace_id !== cred.workspaceId)) return fail("run_not_found", "no such run in this workspace");
  return run;
}
