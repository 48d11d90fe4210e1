import type { Namespace, Server } from "socket.io";
import { eq } from "drizzle-orm";
import { commands } from "@/db/schema";
import type { Credential } from "../credentials";
import { markDelivered, openCommands } from "../commands";
import type { ChipsServices } from "../services";
import type { Frame } from "./frames";

const DELIVERY_ACK_MS = 10_000;
const harnessRoom = (id: string) => `harness:${id}`;

/**
 * The /harness namespace ([RT3]): harnesses and runners connect with `auth: {token}`; the
 * connection is their presence. Each `run.command` of their runs is sent as `command`;
 * the socket's ack is the delivery receipt. On connect, every command not yet acked is sent
 * again, oldest first.
 */
export function attachHarnessNamespace(io: Server, svc: ChipsServices) {
  const nsp: Namespace = io.of("/harness");

  nsp.use(async (socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const cred = typeof token === "string" ? await svc.credentials.resolve(token) : null;
    if (!cred || (cred.kind !== "harness" && cred.kind !== "runner")) return next(new Error("unauthorized"));
    socket.data.cred = cred;
    next();
  });

  nsp.on("connection", async (socket) => {
    const cred = socket.data.cred as Credential;
    socket.join(harnessRoom(cred.subjectId));
    svc.presence.connected(cred.subjectId, cred.workspaceId!);
    socket.on("disconnect", () => svc.presence.disconnected(cred.subjectId));
    try {
      for (const c of await openCommands(svc, cred.subjectId)) {
        const frame = JSON.parse(c.body) as Frame;
        socket.timeout(DELIVERY_ACK_MS).emit("command", frame, (err: Error | null) => {
          if (!err) void markDelivered(svc, c.workspaceId, c.runId, c.id);
        });
      }
    } catch (e) {
      console.error("[harness] resending open commands failed", e);
    }
  });

  /** A command was committed (on any node): send it to its harness's sockets on this node. */
  async function route(frames: Frame[]) {
    for (const f of frames) {
      if (f.type !== "run.command") continue;
      const commandId = f.command_id as string;
      const [cmd] = await svc.db.select({ harnessId: commands.harnessId, receipt: commands.receipt }).from(commands).where(eq(commands.id, commandId)).limit(1);
      if (!cmd?.harnessId || cmd.receipt !== "accepted") continue; // no harness yet (queued), or already settled
      nsp
        .to(harnessRoom(cmd.harnessId))
        .timeout(DELIVERY_ACK_MS)
        .emit("command", f, (_err: Error | null, answers: unknown[] | undefined) => {
          // Any socket of the harness that acked has it, even if another timed out.
          if (answers?.length) void markDelivered(svc, f.workspace_id as string, f.run_id as string, commandId);
        });
    }
  }

  return { nsp, route };
}
