import { vi } from "vitest";
import { RoomFeed, type FeedEvent, type FeedStatus, type RoomSnapshot } from "../../lib/browser/room-feed";

/** A RoomFeed that records everything it delivers, for assertions. */
export function recordingFeed(url: string, spaceId: string, auth: { token?: string; cookie?: string }, afterSeq = 0) {
  const seqs: number[] = [];
  const events: FeedEvent[] = [];
  const statuses: FeedStatus[] = [];
  const snapshots: RoomSnapshot[] = [];
  const feed = new RoomFeed({
    url,
    spaceId,
    afterSeq,
    token: auth.token,
    headers: auth.cookie ? { cookie: auth.cookie } : undefined,
    onEvents: (es) => {
      for (const e of es) {
        seqs.push(e.seq);
        events.push(e);
      }
    },
    onSnapshot: (s) => {
      snapshots.push(s);
      seqs.length = 0;
      events.length = 0;
      for (const e of s.events) {
        seqs.push(e.seq);
        events.push(e);
      }
    },
    onStatus: (s) => statuses.push(s),
  });
  return { feed, seqs, events, statuses, snapshots };
}

/**
 * Resolve when `check` holds (vitest's waitFor); fail naming `what` after `ms`. A function
 * `what` is asked at each miss, so the failure can say what `check` last saw.
 */
export function until(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  ms = 30_000,
): Promise<void> {
  return vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`still waiting for: ${typeof what === "function" ? what() : what}`);
    },
    { timeout: ms, interval: 20 },
  );
}
