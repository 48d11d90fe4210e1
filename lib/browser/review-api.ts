import type { AnnotationBody, ShareBody } from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import { call } from "./api";

/** The review pages' calls to the server's HTTP API, over lib/browser/api.ts; a refusal is thrown as an ApiError. */

export const saveView = (ws: string, name: string, query: string) =>
  call(ROUTES.saveView, { params: { ws }, body: { name, query } });
export const deleteView = (ws: string, view: string) => call(ROUTES.deleteView, { params: { ws, view } });

/** A person's verdict and/or comment on a run, one of its events, or a line of its diff ([ANN1]); a fresh key per press. */
export const annotate = (runId: string, body: Omit<AnnotationBody, "idempotency_key">) =>
  call(ROUTES.annotate, {
    params: { run: runId },
    body: { ...body, idempotency_key: `ann_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}` },
  });

/** A read-only link to a run ([SHR1]); its URL (with the token) is answered this once. */
export const createShare = (runId: string, body: Partial<ShareBody>) =>
  call(ROUTES.createShare, { params: { run: runId }, body });
export const revokeShare = (ws: string, share: string) => call(ROUTES.revokeShare, { params: { ws, share } });

/** The next window of a run's log, of one event type, after a seq ([REV3]): the run page's "show more". */
export const runEvents = (runId: string, type: string, after: number) =>
  call(ROUTES.runEvents, { params: { run: runId }, query: { type, after: String(after) } });
