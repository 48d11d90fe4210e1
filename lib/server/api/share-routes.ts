import type { Hono } from "hono";
import { canonicalId, isId, ShareBody } from "@/lib/core/protocol";
import { firstRunSeq } from "@/lib/server/queries/run-log";
import { listShares, revokeShare, shareById } from "@/lib/server/queries/shares";
import { may } from "../roles";
import { createShare } from "../review/shares";
import type { ChipsServices } from "../services";
import { fail, json, parseBody, type ApiEnv } from "./http";
import { personWriter, runScope, workspaceScope } from "./access";

/**
 * Share links of runs ([SHR1], docs/REVIEW.md). Members and owners make them (a link lets
 * someone outside the workspace read a run, which is more than reviewing); everyone of the
 * workspace sees them and their opens; the person who made one, an owner or the admin
 * revokes it. The shared view itself is a page (`/s/TOKEN`), not an API route.
 */
export function shareRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.post("/api/v1/runs/:run/shares", async (c) => {
    const cred = personWriter(c, "share links are made by people");
    if (cred instanceof Response) return cred;
    const input = await parseBody(c, ShareBody, "bad share link", 16 * 1024, {});
    if (input instanceof Response) return input;
    const run = await runScope(svc, c);
    if (run instanceof Response) return run;
    const { from_seq, to_seq } = input.data;
    if (from_seq !== undefined && from_seq > run.last_seq)
      return fail("validation_failed", "from_seq is after the run's last event", "/from_seq");
    if (to_seq !== undefined) {
      const first = await firstRunSeq(svc.db, run.id);
      if (first === null || to_seq < first)
        return fail("validation_failed", "to_seq is before the run's first event", "/to_seq");
    }
    return json(await createShare(svc, cred, run, input.data), 201);
  });

  // The workspace's links (or one run's, `?run=`), with every open: who shared what is no secret inside.
  app.get("/api/v1/workspaces/:ws/shares", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const run = c.req.query("run");
    if (run !== undefined && !isId("run", run)) return fail("validation_failed", "run must be a run id", "/query/run");
    return json({ shares: await listShares(svc.db, ws, run ? canonicalId(run) : undefined) });
  });

  app.delete("/api/v1/workspaces/:ws/shares/:share", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const cred = c.get("cred");
    const link = await shareById(svc.db, ws, c.req.param("share"));
    if (!link) return fail("not_found", "no share link by that id in this workspace");
    if (!(link.createdBy === cred.subjectId || may(cred, "manage")))
      return fail("forbidden", "a share link is revoked by the person who made it or an owner");
    const revoked = await revokeShare(svc.db, link.id, cred.subjectId);
    return json({ revoked: link.id, already: !revoked });
  });
}
