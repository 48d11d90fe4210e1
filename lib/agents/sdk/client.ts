import { LIMITS } from "../../core/protocol/limits";
import { newId } from "../../core/protocol/ids";
import { HARNESS_EVENTS } from "../../core/protocol/socket";
import { AskWaiter, type AskOptions, type AskOutcome, type AskRequest } from "./asks";
import { Batch } from "./batch";
import { CommandDispatcher, type CommandHandler, type CommandSubscription } from "./commands";
import { ChipsError } from "./errors";
import { PollCommands, type PollOptions } from "./poll";
import { needsDefaults, prepareEvent, type EnvelopeDefaults } from "./prepare";
import { retryPolicy, type RetryPolicy } from "./retry";
import { RunHandle, runStartedEvent, type StartRunOptions } from "./run";
import { SocketCommands, warn, type SocketCommandOptions } from "./socket";
import { Transport } from "./transport";
import type { Actor, EventInput, Me, PreparedEvent, Run, StoredEvent } from "./types";

/** What a ChipsClient needs. */
export interface ChipsClientOptions {
  /** The server's base URL, e.g. `http://localhost:3000`. */
  url: string;
  /** The harness's bearer token. */
  token: string;
  /** The workspace (`ws_…`); learned from `GET /api/v1/me` when left out. */
  workspaceId?: string;
  /** Who events are from when they leave `actor` out; the harness itself when left out. */
  actor?: Actor;
  /** Retries of requests that got no answer, a 5xx, a 429 or a 503 (see RetryPolicy). */
  retry?: Partial<RetryPolicy>;
  /** One try's time limit, ms (default 30 000). */
  requestTimeoutMs?: number;
  /** Stand-in for the global fetch. */
  fetch?: typeof fetch;
}

/** Wire shape of `POST /api/v1/events` answers. */
interface Posted {
  events: StoredEvent[];
}

/**
 * A harness's connection to Chips: posts protocol events (envelopes filled in, retried
 * safely), runs, and commands from the room.
 *
 * ```ts
 * const client = new ChipsClient({ url: "http://localhost:3000", token });
 * const me = await client.whoami();
 * const run = await client.startRun({ spaceId: me.spaces![0].id, goal: "Fix the flaky test" });
 * client.onCommand(async (cmd, { apply }) => { … await apply(); });
 * await run.status({ phase: "reading", verbPhrase: "Reading the test…", progress: 0.1 });
 * await run.finish("succeeded", { summary: "Fixed." });
 * client.close();
 * ```
 */
export class ChipsClient {
  /** The server's base URL (no trailing slash). */
  readonly url: string;
  /** The workspace events go to (set by `whoami` when not given). */
  workspaceId?: string;
  /** Who events are from when they leave `actor` out. */
  actor?: Actor;
  /** What `whoami` answered last. */
  me?: Me;

  private readonly token: string;
  private readonly transport: Transport;
  private readonly dispatcher: CommandDispatcher;
  private readonly asks: AskWaiter;
  private readonly subscriptions = new Set<CommandSubscription>();
  private meRequest: Promise<Me> | null = null;

  constructor(opts: ChipsClientOptions) {
    this.url = opts.url.replace(/\/+$/, "");
    this.token = opts.token;
    this.workspaceId = opts.workspaceId;
    this.actor = opts.actor;
    this.transport = new Transport({
      url: this.url,
      token: opts.token,
      retry: retryPolicy(opts.retry),
      requestTimeoutMs: opts.requestTimeoutMs,
      fetch: opts.fetch,
    });
    this.dispatcher = new CommandDispatcher(this);
    this.asks = new AskWaiter(this, this.transport);
  }

  /** The harness id (from `whoami`, or the actor given). */
  get harnessId(): string | undefined {
    return this.me && (this.me.kind === "harness" || this.me.kind === "runner") ? this.me.id : this.actor?.id;
  }

  /**
   * Who this token is (`GET /api/v1/me`): fills in the workspace and, for a harness or
   * runner, the actor events are sent as. Throws a ChipsError (`unauthorized`) for a bad token.
   */
  async whoami(): Promise<Me> {
    const r = await this.transport.send<Me>({ method: "GET", path: "/api/v1/me" });
    const me = r.body;
    this.me = me;
    this.workspaceId ??= me.workspace_id;
    if (!this.actor && (me.kind === "harness" || me.kind === "runner")) this.actor = { kind: "harness", id: me.id };
    return me;
  }

  /** Post one event; answers it as stored (a replay of its key answers the event stored first). */
  post(event: EventInput): Promise<StoredEvent>;
  /** Post events as one all-or-nothing request (at most 500; see `batch()` for more); answers them as stored, in order. */
  post(events: EventInput[]): Promise<StoredEvent[]>;
  async post(input: EventInput | EventInput[]): Promise<StoredEvent | StoredEvent[]> {
    if (!Array.isArray(input)) {
      const [event] = await this.prepare([input]);
      const body = await this.send(JSON.stringify(event), 1);
      return body[0];
    }
    if (input.length === 0) return [];
    if (input.length > LIMITS.batchEvents) {
      throw new ChipsError({
        code: "payload_too_large",
        status: 413,
        detail: `at most ${LIMITS.batchEvents} events in one request: use client.batch() for more`,
      });
    }
    return this.sendAtomic(await this.prepare(input));
  }

  /** A queue of events to send together (`add` …, then `flush`). */
  batch(): Batch {
    return new Batch(this);
  }

  /** Envelopes filled in (asking `whoami` first when the workspace or actor is unknown). */
  async prepare(events: EventInput[]): Promise<PreparedEvent[]> {
    const defaults = events.some(needsDefaults)
      ? await this.defaults()
      : { workspaceId: this.workspaceId!, actor: this.actor! };
    return events.map((e) => prepareEvent(e, defaults));
  }

  /** Send prepared events as one `{"events": [...]}` request (retried with the same body). */
  async sendAtomic(events: PreparedEvent[]): Promise<StoredEvent[]> {
    return this.send(JSON.stringify({ events }), events.length);
  }

  /** Start a run in a room (`run.started`); answers the handle its events go through. */
  async startRun(opts: StartRunOptions): Promise<RunHandle> {
    const runId = opts.runId ?? newId("run");
    const started = await this.post(runStartedEvent(opts, runId));
    return new RunHandle(this, runId, opts.spaceId, started);
  }

  /**
   * A run's read model (`GET /api/v1/runs/:run`): its state with pending flag, plan dots,
   * latest status, usage and outcome — the same {@link Run} the room draws.
   */
  async run(runId: string): Promise<Run> {
    const r = await this.transport.send<Run>({ method: "GET", path: `/api/v1/runs/${encodeURIComponent(runId)}` });
    return r.body;
  }

  /** A handle for a run that already started (e.g. after the harness restarted). */
  runHandle(runId: string, spaceId: string): RunHandle {
    return new RunHandle(this, runId, spaceId, null);
  }

  /** Answer a command (`run.command_acked`). Acks are idempotent: the same result again answers the stored ack. */
  ack(runId: string, commandId: string, result: "applied" | "rejected", reason?: string): Promise<StoredEvent> {
    return this.post({
      type: "run.command_acked",
      run_id: runId,
      command_id: commandId,
      result,
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  /**
   * Ask a person in the run's room and wait for the answer ([ASK1]–[ASK6]): posts `run.asked`
   * and answers what became of it — a person's answer (act on it, then `apply()`; or
   * `reject(reason)`), or its close (expired: apply your safe default; withdrawn through
   * `signal`; the run finished). The answer comes by the `/harness` socket when `onCommand`
   * opened one, and by long-poll in any case. With `expiresInSeconds` the ask is closed
   * `expired` (a permission's default: `deny`) when the time is up.
   */
  ask(runId: string, request: AskRequest, opts: AskOptions = {}): Promise<AskOutcome> {
    return this.asks.ask(runId, request, opts);
  }

  /**
   * Receive commands over the `/harness` socket: `handler(command, {apply, reject})` once
   * per command. Reconnects by itself; commands sent while away arrive on reconnect ([RT3]).
   * The same socket brings the answers to `ask`.
   */
  onCommand(handler: CommandHandler, opts: SocketCommandOptions = {}): SocketCommands {
    const sub = new SocketCommands(this.url, this.token, this.dispatcher, handler, opts);
    sub.socket.on(HARNESS_EVENTS.answer, (frame: unknown) => this.asks.deliver(frame));
    return this.track(sub);
  }

  /** Receive commands by polling `GET /api/v1/commands` every `intervalMs` (no socket). */
  pollCommands(handler: CommandHandler, opts: PollOptions = {}): PollCommands {
    const sub = new PollCommands(this.transport, this.dispatcher, handler, opts, opts.onError ?? warn);
    return this.track(sub);
  }

  /** Close every command socket and poller (requests already under way finish). */
  close(): void {
    for (const s of this.subscriptions) s.close();
    this.subscriptions.clear();
  }

  private track<S extends CommandSubscription>(sub: S): S {
    this.subscriptions.add(sub);
    const close = sub.close.bind(sub);
    sub.close = () => {
      this.subscriptions.delete(sub);
      close();
    };
    return sub;
  }

  private async defaults(): Promise<EnvelopeDefaults> {
    if (!this.workspaceId || (!this.actor && !this.me)) {
      this.meRequest ??= this.whoami().finally(() => (this.meRequest = null));
      await this.meRequest;
    }
    if (!this.workspaceId)
      throw new ChipsError({ code: "unauthorized", status: 401, detail: "this token belongs to no workspace" });
    return { workspaceId: this.workspaceId, actor: this.actor! };
  }

  private async send(body: string, count: number): Promise<StoredEvent[]> {
    const r = await this.transport.send<Posted>({ method: "POST", path: "/api/v1/events", body });
    if (!Array.isArray(r.body?.events) || r.body.events.length !== count) {
      throw new ChipsError({
        code: "bad_response",
        status: r.status,
        detail: `expected ${count} stored event(s) in the answer`,
      });
    }
    return r.body.events;
  }
}
