import { newId, type StoredEvent } from "../../lib/core/protocol";

/**
 * Stored events of one run built by hand, for the pure folds a test calls without a server:
 * each call takes the next seq, and its time is `t0` plus that many seconds.
 */
export function storedEvents(at: { workspace_id: string; space_id: string; run_id: string }, t0: number) {
  let seq = 0;
  return (type: string, actor: object, fields: Record<string, unknown> = {}): StoredEvent => {
    seq++;
    return {
      v: 1,
      type,
      id: newId("event"),
      ...at,
      actor,
      idempotency_key: `k${seq}`,
      seq,
      ts: new Date(t0 + seq * 1000).toISOString(),
      ...fields,
    } as unknown as StoredEvent;
  };
}
