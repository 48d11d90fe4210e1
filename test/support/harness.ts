import { io, type Socket } from "socket.io-client";
import { newId } from "../../lib/core/protocol";
import { ev, post, request, type Workspace } from "./api";
import { until } from "./feed";

/** A raw Socket.IO harness on /harness (no SDK): records the commands it is sent, acks each delivery. */
export function socketHarness(url: string, token: string) {
  const commands: any[] = [];
  const socket: Socket = io(`${url}/harness`, { transports: ["websocket"], auth: { token }, reconnectionDelay: 100 });
  socket.on("command", (c: any, ack?: () => void) => {
    commands.push(c);
    ack?.();
  });
  return { socket, commands, connected: () => until(() => socket.connected, "harness connected") };
}

export async function command(
  server: { url: string },
  ws: Workspace,
  runId: string,
  command: string,
  text?: string,
  key = newId("command"),
) {
  return request(`${server.url}/api/v1/runs/${runId}/commands`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ command, ...(text ? { text } : {}), idempotency_key: key }),
  });
}

export async function receipts(server: { url: string }, ws: Workspace, runId: string) {
  return (await request(`${server.url}/api/v1/runs/${runId}/commands`, { token: ws.token })).body;
}

export const ack = (
  server: { url: string },
  ws: Workspace,
  runId: string,
  commandId: string,
  result: "applied" | "rejected",
  reason?: string,
) =>
  post(
    server,
    ws.token,
    ev(ws, "run.command_acked", { run_id: runId, command_id: commandId, result, ...(reason ? { reason } : {}) }),
  );
