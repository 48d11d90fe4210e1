import type { SavedView, ShareBody, ShareLink, StoredEvent } from "@/lib/core/protocol";
import { failureLine, request } from "./api";

/**
 * The review pages' calls to the server's HTTP API, over lib/browser/api.ts. Each answers
 * the body or a sentence to show; never throws.
 */
export type ReviewAnswer<T> = { ok: true; value: T } | { ok: false; detail: string };

async function call<T>(method: string, path: string, body?: unknown): Promise<ReviewAnswer<T>> {
  try {
    return { ok: true, value: await request<T>(method, path, body) };
  } catch (e) {
    return { ok: false, detail: failureLine(e, "Could not reach Chips.", (s) => `Refused (${s}).`) };
  }
}

export const saveView = (ws: string, name: string, query: string) =>
  call<SavedView>("POST", `/api/v1/workspaces/${encodeURIComponent(ws)}/review/views`, { name, query });
export const deleteView = (ws: string, id: string) =>
  call<unknown>("DELETE", `/api/v1/workspaces/${encodeURIComponent(ws)}/review/views/${encodeURIComponent(id)}`);

/** A person's verdict and/or comment on a run, one of its events, or a line of its diff ([ANN1]); a fresh key per press. */
export const annotate = (
  runId: string,
  body: {
    verdict?: string;
    comment?: string;
    target: { kind: "run" } | { kind: "event"; seq: number } | { kind: "diff"; path: string; line: number };
  },
) =>
  call<unknown>("POST", `/api/v1/runs/${encodeURIComponent(runId)}/annotations`, {
    ...body,
    idempotency_key: `ann_${Date.now().toString(36)}_${Math.random().toString(36).slice(2)}`,
  });

/** A read-only link to a run ([SHR1]); its URL (with the token) is answered this once. */
export const createShare = (runId: string, body: Partial<ShareBody>) =>
  call<{ link: ShareLink; url: string }>("POST", `/api/v1/runs/${encodeURIComponent(runId)}/shares`, body);
export const revokeShare = (ws: string, id: string) =>
  call<unknown>("DELETE", `/api/v1/workspaces/${encodeURIComponent(ws)}/shares/${encodeURIComponent(id)}`);

/** The next window of a run's log, of one event type, after a seq ([REV3]): the run page's "show more". */
export const runEvents = (runId: string, type: string, after: number) =>
  call<{ events: StoredEvent[]; next: number | null }>(
    "GET",
    `/api/v1/runs/${encodeURIComponent(runId)}/events?type=${encodeURIComponent(type)}&after=${after}`,
  );
