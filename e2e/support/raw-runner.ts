import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { newId } from "../../lib/core/protocol";
import type {
  ChangeSetPayload,
  LeaseRenewAck,
  ObjectRef,
  RunnerHello,
  RunnerHelloAck,
  StartRequest,
} from "../../lib/core/protocol/runner-contract";
import { baseURL, type StoredEvent, type Workspace } from "./api";
import { startFromRoom } from "./start-run";

let keys = 0;
const key = () => `e2e-rnr-${process.pid}-${Date.now()}-${++keys}`;

/**
 * A runner as Chips sees one, with no agent behind it: a real Socket.IO client on
 * `/harness` that says `runner.hello`, takes each `runner.start` (acked ok), and posts its
 * run's events and artifacts through the real HTTP API with its runner token (§5).
 */
export class RawRunner {
  socket: Socket | null = null;
  runnerId = "";
  readonly starts: StartRequest[] = [];
  private sequence = new Map<string, number>();

  private constructor(
    private request: APIRequestContext,
    readonly ws: Workspace,
    readonly id: string,
    readonly token: string,
  ) {}

  /** A runner credential made with the admin token: `POST /api/v1/workspaces/:ws/harnesses {kind: "runner"}`. */
  static async create(
    request: APIRequestContext,
    adminToken: string,
    ws: Workspace,
    name = "e2e runner",
  ): Promise<RawRunner> {
    const r = await request.post(`/api/v1/workspaces/${ws.workspace_id}/harnesses`, {
      headers: { authorization: `Bearer ${adminToken}` },
      data: { name, kind: "runner" },
    });
    expect(r.status(), await r.text()).toBe(201);
    const made = (await r.json()) as { id?: string; harness_id?: string; token: string };
    const id = made.id ?? made.harness_id ?? "";
    expect(id, "the runner credential's id").toMatch(/^rnr_/);
    return new RawRunner(request, ws, id, made.token);
  }

  /** Every hello's ack, in order: one a connection (a runner that reconnects says hello again). */
  readonly hellos: RunnerHelloAck[] = [];

  /**
   * Connect and say hello; answers the hello's ack (which must be ok). With `reconnect`, the
   * socket reconnects as the real runner's does (through `url`, a balancer) and says hello
   * again on every connection.
   */
  async connect(
    hello: Partial<RunnerHello> = {},
    via: { url?: string; headers?: Record<string, string>; reconnect?: boolean } = {},
  ): Promise<RunnerHelloAck & { ok: true }> {
    const socket = io(`${via.url ?? baseURL()}/harness`, {
      auth: { token: this.token },
      transports: ["websocket"],
      extraHeaders: via.headers,
      forceNew: true,
      reconnection: via.reconnect ?? false,
      reconnectionDelay: 200,
      timeout: 10_000,
    });
    this.socket = socket;
    socket.on("runner.start", (req: StartRequest, ack?: (a: unknown) => void) => {
      this.starts.push(req);
      ack?.({ ok: true });
    });
    const sayHello = async () => {
      const ack = (await socket.timeout(10_000).emitWithAck("runner.hello", {
        v: 1,
        name: "e2e runner",
        adapters: [{ agent: "codex", profiles: ["read-only", "workspace-write"], version: "test" }],
        repositories: ["demo-repo"],
        capacity: 2,
        ...hello,
      })) as RunnerHelloAck;
      this.hellos.push(ack);
      return ack;
    };
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", (e) => reject(new Error(`runner connect: ${e.message}`)));
    });
    const ack = await sayHello();
    expect(ack, "runner.hello ack").toMatchObject({ ok: true, runner_id: this.id });
    this.runnerId = (ack as { runner_id: string }).runner_id;
    // Later connections (after a reconnect) say hello again; a refused one shows in `hellos`.
    socket.on("connect", () => {
      sayHello().catch((e: Error) => this.hellos.push({ ok: false, error: e.message }));
    });
    return ack as RunnerHelloAck & { ok: true };
  }

  /** `lease.renew {run_id}` on the runner's socket: its ack. */
  async renew(runId: string): Promise<LeaseRenewAck> {
    return (await this.socket!.timeout(10_000).emitWithAck("lease.renew", { run_id: runId })) as LeaseRenewAck;
  }

  /** The `runner.start` of `runId`, once Chips sent it. */
  async startOf(runId: string): Promise<StartRequest> {
    await expect.poll(() => this.starts.map((s) => s.run_id), { message: "runner.start for the run" }).toContain(runId);
    return this.starts.find((s) => s.run_id === runId)!;
  }

  /** A run a person starts from the room on repository `demo-repo`, once Chips handed it to this runner: its id. */
  async takeFromRoom(page: Page, prompt: string): Promise<string> {
    const { body } = await startFromRoom(page, { prompt, repository: "demo-repo" });
    const runId = body.run_id!;
    await this.startOf(runId);
    return runId;
  }

  /** An event of `runId` from this runner (runner.event carries no idempotency key: it dedupes on its sequence). */
  event(runId: string, type: string, fields: Record<string, unknown>): Record<string, unknown> {
    return {
      v: 1,
      type,
      id: newId("event"),
      workspace_id: this.ws.workspace_id,
      space_id: this.ws.space_id,
      run_id: runId,
      actor: { kind: "harness", id: this.id },
      ...(type === "runner.event" ? {} : { idempotency_key: key() }),
      ...fields,
    };
  }

  /** `runner.event` with the run's next sequence. */
  runnerEvent(runId: string, kind: string, message: string, payload?: Record<string, unknown> | ChangeSetPayload) {
    const sequence = (this.sequence.get(runId) ?? 0) + 1;
    this.sequence.set(runId, sequence);
    return this.event(runId, "runner.event", {
      sequence,
      kind,
      message,
      ...(payload ? { payload } : {}),
      occurred_at: new Date().toISOString(),
    });
  }

  /** `POST /api/v1/events {events}` with the runner token; expects 201. */
  async post(...events: Record<string, unknown>[]): Promise<StoredEvent[]> {
    const r = await this.request.post("/api/v1/events", {
      headers: { authorization: `Bearer ${this.token}` },
      data: { events },
    });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { events: StoredEvent[] }).events;
  }

  /** `PUT /api/v1/runs/:run/objects` (raw bytes) with the runner token; answers the stored ref ([RN3]). */
  async putObject(runId: string, body: string | Buffer): Promise<ObjectRef> {
    const r = await this.request.put(`/api/v1/runs/${runId}/objects`, {
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/octet-stream" },
      data: Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8"),
    });
    expect(r.status(), await r.text()).toBe(201);
    const ref = (await r.json()) as ObjectRef;
    expect(ref).toMatchObject({
      key: expect.any(String),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      bytes: Buffer.byteLength(body),
    });
    return ref;
  }

  close() {
    this.socket?.disconnect();
    this.socket = null;
  }
}
