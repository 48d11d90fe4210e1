import { commandRoute } from "@/lib/server/queries/runs";
import { askRoute, unappliedAnswers } from "@/lib/server/queries/asks";
import type { WorkspaceCredential } from "../credentials";
import { markDelivered, openCommands } from "../commands";
import type { ChipsServices } from "../services";
import { HARNESS_EVENTS, type Frame } from "@/lib/core/protocol";
import type { OutFrame } from "./raw";
import type { ChipsNamespace, ChipsServer, ChipsSocket } from "./wire";
import { RunnerHello, type LeaseRenewAck, type RunnerHelloAck } from "@/lib/core/protocol/runner-contract";
import { Dispatcher } from "../dispatch/dispatch";
import { failedHandshake } from "./authenticate";
import { workspaceRoom } from "./person-socket";

const DELIVERY_ACK_MS = 10_000;
const harnessRoom = (id: string) => `harness:${id}`;
type AnswerFrame = Extract<Frame, { type: "run.answered" | "run.ask_closed" }>;

/**
 * The frames (by event id) each harness socket was sent. A socket that connects while one of
 * its commands is being routed is reached twice — by the live route, which joined it to the
 * room, and by the resend on connect, whose read saw the command — and gets it once ([RT3]).
 */
const sentTo = new WeakMap<ChipsSocket, Set<string>>();
function firstTime(socket: ChipsSocket, eventId: string): boolean {
  let sent = sentTo.get(socket);
  if (!sent) sentTo.set(socket, (sent = new Set()));
  if (sent.has(eventId)) return false;
  sent.add(eventId);
  return true;
}
const ROUTED = new Set([
  "run.queued",
  "run.finished",
  "run.command",
  "run.ask_shown",
  "run.answered",
  "run.answer_applied",
  "run.ask_closed",
]);

/**
 * The /harness namespace ([RT3]): harnesses and runners connect with `auth: {token}`; the
 * connection is their presence. Each `run.command` of their runs is sent as `command`;
 * the socket's ack is the delivery receipt. Each answer to one of their asks is sent as
 * `answer` ([ASK4]). On connect, every command not yet acked and every answer not yet
 * reported is sent again, oldest first.
 */
export function attachHarnessNamespace(
  io: ChipsServer,
  svc: Pick<
    ChipsServices,
    | "askWaits"
    | "attempts"
    | "clientAddress"
    | "config"
    | "credentials"
    | "db"
    | "keys"
    | "presence"
    | "runners"
    | "stopping"
    | "storage"
    | "writer"
  >,
) {
  const nsp: ChipsNamespace = io.of("/harness");

  nsp.use(async (socket, next) => {
    if (svc.stopping) return next(new Error("shutting_down"));
    try {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      const cred = typeof token === "string" ? await svc.credentials.resolve(token) : null;
      if (!cred) failedHandshake(svc, socket, "harness socket token");
      if (!cred || (cred.kind !== "harness" && cred.kind !== "runner")) return next(new Error("unauthorized"));
      socket.data.cred = cred;
      next();
    } catch (e) {
      next(new Error(svc.storage.refuse(e, "harness handshake")));
    }
  });
  /** A delivery receipt, never an unhandled rejection: the command is sent again on reconnect ([RT3]). */
  const delivered = (ws: string, run: string, command: string) =>
    void markDelivered(svc, ws, run, command).catch((e) => svc.storage.refuse(e, "delivery receipt"));

  const dispatcher = new Dispatcher(svc, svc.keys, svc.runners);
  // The safety net: lapsed leases fail their runs; queued runs are offered again.
  const tickMs = Math.max(250, Math.min(5000, (svc.config.leaseTtlSeconds * 1000) / 4));
  const timer = setInterval(() => {
    if (!svc.storage.available) return; // the storage probe says when it is back
    void dispatcher.reap().catch((e) => svc.storage.refuse(e, "lease reaper"));
    for (const ws of dispatcher.workspaces()) void dispatcher.kick(ws);
  }, tickMs);
  timer.unref();

  nsp.on("connection", async (socket) => {
    const cred = socket.data.cred as WorkspaceCredential;
    socket.join(harnessRoom(cred.subjectId));
    // This node fans its workspace's commits out while it is here (RoomHub's inUse).
    socket.join(workspaceRoom(cred.workspaceId));
    svc.presence.connected(cred.subjectId, cred.workspaceId);
    socket.on("disconnect", () => {
      svc.presence.disconnected(cred.subjectId);
      dispatcher.remove(socket.id);
    });
    if (cred.kind === "runner") {
      // A runner says what it can run; the ack carries the key its leases verify with.
      // Sent by untrusted clients: every payload is parsed, and the ack may be missing.
      socket.on(HARNESS_EVENTS.runnerHello, (raw: unknown, ack?: (a: RunnerHelloAck) => void) => {
        const hello = RunnerHello.safeParse(raw);
        if (!hello.success)
          return ack?.({ ok: false, error: `invalid runner.hello: ${hello.error.issues[0]?.message ?? "bad shape"}` });
        ack?.({ ok: true, runner_id: cred.subjectId, lease_public_key: svc.keys.leasePublicPem });
        dispatcher.add(socket, cred.subjectId, cred.workspaceId, hello.data);
      });
      socket.on(HARNESS_EVENTS.leaseRenew, (raw: unknown, ack?: (a: LeaseRenewAck) => void) => {
        const runId = (raw as { run_id?: unknown } | null)?.run_id;
        void dispatcher
          .renew(cred.subjectId, runId)
          .then((a) => ack?.(a))
          .catch((e) => ack?.({ ok: false, error: svc.storage.refuse(e, "lease renewal") }));
      });
    }
    try {
      for (const c of await openCommands(svc, cred.subjectId)) {
        const frame = JSON.parse(c.body) as Frame;
        if (!firstTime(socket, frame.id)) continue;
        socket.timeout(DELIVERY_ACK_MS).emit(HARNESS_EVENTS.command, frame, (err: Error | null) => {
          if (!err) delivered(c.workspaceId, c.runId, c.id);
        });
      }
      // Answers it has not yet said it applied, as commands are resent until acked ([RT3], [ASK4]).
      for (const a of await unappliedAnswers(svc.db, cred.subjectId)) {
        const frame = JSON.parse(a.body) as AnswerFrame;
        if (firstTime(socket, frame.id)) socket.emit(HARNESS_EVENTS.answer, frame);
      }
    } catch (e) {
      svc.storage.refuse(e, "resending open commands and answers");
    }
  });

  /** A command was committed (on any node): send it to its harness's sockets on this node. */
  async function route(out: OutFrame[]) {
    // Only these types matter here, and only they are parsed: a room's messages never are.
    const frames: Frame[] = out.filter((f) => ROUTED.has(f.type)).map((f) => JSON.parse(f.json));
    // A run queued, or a run ended (a runner has room again): offer queued runs.
    const kicks = new Set(
      frames.filter((f) => f.type === "run.queued" || f.type === "run.finished").map((f) => f.workspace_id as string),
    );
    for (const ws of kicks) void dispatcher.kick(ws);
    // Long-polls on an ask wake when it moves ([ASK4]).
    for (const f of frames) if ("ask_id" in f) svc.askWaits.moved(f.ask_id);
    for (const f of frames) {
      if (f.type === "run.answered" || (f.type === "run.ask_closed" && f.actor.kind === "system")) await answer(f);
      if (f.type !== "run.command") continue;
      const commandId = f.command_id as string;
      const cmd = await commandRoute(svc.db, commandId);
      if (!cmd?.harnessId || cmd.receipt !== "accepted") continue; // no harness yet (queued), or already settled
      // Any socket of the harness that acks has it, even if another times out.
      let acked = false;
      for (const socket of harnessSockets(cmd.harnessId, f.id)) {
        socket.timeout(DELIVERY_ACK_MS).emit(HARNESS_EVENTS.command, f, (err: Error | null) => {
          if (err || acked) return;
          acked = true;
          delivered(f.workspace_id as string, f.run_id as string, commandId);
        });
      }
    }
  }

  /**
   * A person answered one of its asks, or Chips closed one (expired, the run finished): sent to
   * the ask's harness as `answer`. Not acked into the log: the harness's `run.answer_applied`
   * is the receipt, and until it comes the answer is sent again on each (re)connect.
   */
  async function answer(f: AnswerFrame) {
    const ask = await askRoute(svc.db, f.ask_id);
    if (ask?.harnessId) for (const socket of harnessSockets(ask.harnessId, f.id)) socket.emit(HARNESS_EVENTS.answer, f);
  }

  /** The harness's sockets on this node that have not been sent this frame yet. */
  function harnessSockets(harnessId: string, eventId: string): ChipsSocket[] {
    const out: ChipsSocket[] = [];
    for (const id of nsp.adapter.rooms.get(harnessRoom(harnessId)) ?? []) {
      const socket = nsp.sockets.get(id);
      if (socket && firstTime(socket, eventId)) out.push(socket);
    }
    return out;
  }

  return { nsp, route, close: () => clearInterval(timer) };
}
