import type { Committed } from "./ingest/writer";
import { log } from "./log";

/** Who hears of this node's commits, each by its name. */
export type CommitSubscriber =
  /** The sockets: each room's new events go out to the people in it (realtime/hub.ts). */
  | "room-hub"
  /** The review index of runs, kept after commit (review/indexer.ts). */
  | "review-index"
  /** Tasks set to start by themselves when their prerequisites succeeded (tasks/auto-start.ts). */
  | "task-auto-start"
  /** New asks enqueued for the workspace's webhooks, sent by every node (webhooks/hooks.ts). */
  | "ask-webhooks"
  /** Finished runs out as GenAI spans to an OTLP receiver, when one is configured (otel/exporter.ts). */
  | "otlp-export";

/** A workspace's events just committed on this node, in seq order. */
export type CommitHandler = (workspaceId: string, committed: Committed[]) => void;

/**
 * The one way from a commit to what follows it on this node: the writer publishes each
 * committed batch here, after its transaction, and every named subscriber hears it in the
 * order they subscribed. A subscriber must not block: what it does with a batch (a socket
 * emit, a scheduled index round, a task start) runs on its own and reports its own errors.
 * Other nodes hear of commits by NOTIFY (realtime/attach.ts), not here.
 */
export class CommitBus {
  private subscribers = new Map<CommitSubscriber, CommitHandler>();

  /** Hear every commit from now on, until the answer is called. One handler per name. */
  subscribe(name: CommitSubscriber, handler: CommitHandler): () => void {
    if (this.subscribers.has(name)) throw new Error(`the commit bus already has a ${name} subscriber`);
    this.subscribers.set(name, handler);
    return () => {
      if (this.subscribers.get(name) === handler) this.subscribers.delete(name);
    };
  }

  /** Tell every subscriber; one that throws is logged, and the others still hear. */
  publish(workspaceId: string, committed: Committed[]): void {
    for (const [name, handler] of this.subscribers) {
      try {
        handler(workspaceId, committed);
      } catch (e) {
        log.error({ err: e, workspaceId, subscriber: name }, "a commit subscriber failed");
      }
    }
  }
}
