import { canonicalId, problem, problemAt } from "@/lib/core/protocol";
import { SHARE_ROUTES } from "@/lib/core/routes";
import { firstRunSeq } from "@/lib/server/queries/run-log";
import { listShares, revokeShare, shareById } from "@/lib/server/queries/shares";
import { may } from "../roles";
import { createShare } from "../review/shares";
import type { ChipsServices } from "../services";
import type { Handlers } from "./adapter";

/**
 * The handlers of share links ([SHR1], docs/REVIEW.md). A link lets someone outside the
 * workspace read a run, which is more than reviewing: members and owners make them; everyone
 * of the workspace sees them and their opens; the person who made one, an owner or the admin
 * revokes it. The shared view itself is a page (`/s/TOKEN`), not an API route.
 */
export function shareHandlers(svc: Pick<ChipsServices, "config" | "db">): Handlers<typeof SHARE_ROUTES> {
  return {
    createShare: async ({ cred, run, body }) => {
      const { from_seq, to_seq } = body;
      if (from_seq !== undefined && from_seq > run.last_seq)
        return problemAt("validation_failed", "from_seq is after the run's last event", "/from_seq");
      if (to_seq !== undefined) {
        const first = await firstRunSeq(svc.db, run.id);
        if (first === null || to_seq < first)
          return problemAt("validation_failed", "to_seq is before the run's first event", "/to_seq");
      }
      return { status: 201, body: await createShare(svc, cred, run, body) };
    },

    // Who shared what is no secret inside the workspace.
    shares: async ({ ws, query }) => ({
      status: 200,
      body: { shares: await listShares(svc.db, ws, query.run ? canonicalId(query.run) : undefined) },
    }),

    revokeShare: async ({ cred, ws, params }) => {
      const link = await shareById(svc.db, ws, params.share);
      if (!link) return problem("not_found", "no share link by that id in this workspace");
      if (!(link.createdBy === cred.subjectId || may(cred, "manage")))
        return problem("forbidden", "a share link is revoked by the person who made it or an owner");
      const revoked = await revokeShare(svc.db, link.id, cred.subjectId);
      return { status: 200, body: { revoked: link.id, already: !revoked } };
    },
  };
}
