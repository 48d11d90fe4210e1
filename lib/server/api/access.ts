import { canonicalId, isId, problem, problemAt, type ProblemError, type Run, type Who } from "@/lib/core/protocol";
import { spaceInfo } from "@/lib/server/queries/frames";
import { getRun } from "@/lib/server/queries/runs";
import type { Credential } from "../credentials";
import { may, refusedBecause } from "../roles";
import type { ChipsServices } from "../services";

/**
 * Who may call a route, and what its path is about, decided here for every route by the
 * adapter (lib/server/api/adapter.ts): "another workspace's" is decided in one place
 * (docs/ROLES.md). Each answers its value or the refusal.
 */

const forbidden = (detail: string) => problem("forbidden", detail);
const kindRefusal = (who: Who) => who.refusal ?? `this needs a ${who.kinds!.join(" or ")} credential`;

/** The credential's kind, then what its role allows: persons by role, the admin always, harnesses write. */
export function allowed(cred: Credential, who: Who): ProblemError | null {
  if (who.kinds && !who.kinds.includes(cred.kind as never)) return forbidden(kindRefusal(who));
  if (who.may && !may(cred, who.may)) return forbidden(refusedBecause(who.may));
  return null;
}

/**
 * The `:ws` path parameter, checked against the credential with `who`: a credential of
 * another workspace is refused before its role is judged, so a stranger learns nothing of
 * the workspace's roles. Answers the canonical id.
 * [HTTP3] A malformed id is `422` at `/path/ws` for whoever asks, before who may: it names no
 * workspace, so the answer tells nothing about any.
 */
export function workspaceScope(cred: Credential, raw: string, who: Who): string | ProblemError {
  if (!isId("workspace", raw)) return problemAt("validation_failed", "not a workspace id", "/path/ws");
  const ws = canonicalId(raw);
  if (who.may && cred.workspaceId && cred.workspaceId !== ws)
    return forbidden("this credential belongs to another workspace");
  if (who.may && !may(cred, who.may)) return forbidden(refusedBecause(who.may));
  if (who.kinds && !who.kinds.includes(cred.kind as never)) return forbidden(kindRefusal(who));
  if (cred.kind !== "admin" && cred.workspaceId !== ws)
    return forbidden("this credential belongs to another workspace");
  return ws;
}

/** The `:run` path parameter: a run of the caller's workspace (any for the admin), else 404. */
export async function runScope(
  svc: Pick<ChipsServices, "db">,
  cred: Credential,
  id: string,
): Promise<Run | ProblemError> {
  const run = isId("run", id) ? await getRun(svc.db, canonicalId(id)) : null;
  if (!run || (cred.kind !== "admin" && run.workspace_id !== cred.workspaceId))
    return problem("run_not_found", "no such run in this workspace");
  return run;
}

/** The `:space` path parameter: a space of the caller's workspace (another's answers like a missing one). */
export async function spaceScope(
  svc: Pick<ChipsServices, "db">,
  cred: Credential,
  raw: string,
): Promise<{ id: string; workspaceId: string } | ProblemError> {
  const info = isId("space", raw) ? await spaceInfo(svc.db, canonicalId(raw)) : null;
  if (!info || (cred.kind !== "admin" && info.workspaceId !== cred.workspaceId))
    return problem("space_not_found", "no such space in this workspace");
  return { id: canonicalId(raw), workspaceId: info.workspaceId };
}
