import type { Run } from "./client";

/** A delivery claimed for one attempt: what to post, where, and how many attempts it has had with this one. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  workspace_id: string;
  run_id: string;
  ask_id: string;
  payload: string;
  attempts: number;
  /** The webhook's URL; null when the webhook was removed since. */
  url: string | null;
}

// One statement claims the due deliveries for one attempt each: it counts the attempt and
// pushes the next one past the time an attempt may take, so no other node (or round) takes
// them meanwhile; SKIP LOCKED lets nodes sweep at once without waiting on each other.
const CLAIM = `update webhook_deliveries d
  set attempts = d.attempts + 1, next_at = now() + make_interval(secs => $2)
  where d.id in (
    select id from webhook_deliveries where state = 'pending' and next_at <= now()
    order by next_at limit $1 for update skip locked
  )
  returning d.id, d.webhook_id, d.workspace_id, d.run_id, d.ask_id, d.payload, d.attempts,
    (select w.url from webhooks w where w.id = d.webhook_id and w.removed_at is null) as url`;

/** Claim up to `limit` due deliveries ([ASK7]); each is held for `holdSeconds` while it is tried. */
export async function claimDeliveries(run: Run, limit: number, holdSeconds: number): Promise<ClaimedDelivery[]> {
  const rows = await run<ClaimedDelivery>(CLAIM, [limit, holdSeconds]);
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}
