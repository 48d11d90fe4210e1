import { NamedBus } from "./bus";
import type { Committed } from "./ingest/writer";
import type { OutFrame } from "./realtime/raw";

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
  | "otlp-export"
  /** Other nodes told of the commit by a NOTIFY after it, on PostgreSQL (services.ts, notify.ts). */
  | "node-notices";

/**
 * The one way from a commit to what follows it on this node: the writer publishes each
 * committed batch (a workspace's events in seq order) here, after its transaction. Other
 * nodes hear of commits by the NOTIFY `node-notices` sends (realtime/attach.ts), not here.
 */
export class CommitBus extends NamedBus<CommitSubscriber, [workspaceId: string, committed: Committed[]]> {
  constructor() {
    super("commit");
  }
}

/** Who hears what this node's rooms fan out, each by its name. */
export type FanoutSubscriber =
  /** Ask events out to the workspace's people sockets, and an ask shown marked so ([ASK4], realtime/asks.ts). */
  | "ask-fanout"
  /** Commands and answers to their harness's sockets, queued runs offered, ask long-polls woken (realtime/harness.ts). */
  | "harness-routing";

/**
 * Every frame the room hub fans out on this node, in seq order: this node's commits and other
 * nodes' (read after their NOTIFY). What must follow a commit made on any node — a command
 * reaching the harness connected here — hears this bus; the commit bus hears this node's only.
 */
export class FanoutBus extends NamedBus<FanoutSubscriber, [frames: OutFrame[]]> {
  constructor() {
    super("fan-out");
  }
}

/** What happened to someone's access: gone, or their role changed (sockets stay, with the new role). */
export type AccessChange = "revoked" | "role";

/** Who hears that someone's access changed, each by its name. */
export type AccessSubscriber =
  /** The credential cache forgets the subject's or token's credentials (credentials.ts). */
  | "credential-cache"
  /** The session cache forgets a person's sessions (sessions.ts). */
  | "session-cache"
  /** Their sockets close, or are told their new role (realtime/attach.ts). */
  | "sockets";

/**
 * A subject (person, harness, runner) or one token (tok_…) was revoked, or a person's role
 * changed — on this node (revoke.ts) or another (its NOTIFY, heard in realtime/attach.ts).
 */
export class AccessBus extends NamedBus<AccessSubscriber, [id: string, change: AccessChange]> {
  constructor() {
    super("access");
  }
}
