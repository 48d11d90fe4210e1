import { io, type Socket } from "socket.io-client";
import type { RunnerHello, StartRequest } from "../../lib/core/protocol/runner-contract";
import { until } from "./feed";

/**
 * A runner connection without the Runner (a real Socket.IO client on /harness): says hello
 * and records the start requests Chips hands it, acking each. Tests take a genuine request
 * from here and feed the real Runner a changed one.
 */
export async function rawRunner(url: string, token: string, hello: Partial<RunnerHello> = {}) {
  const starts: StartRequest[] = [];
  const socket: Socket = io(`${url}/harness`, { transports: ["websocket"], auth: { token }, forceNew: true });
  socket.on("runner.start", (req: StartRequest, ack?: (a: unknown) => void) => {
    starts.push(req);
    ack?.({ ok: true });
  });
  const answer = await new Promise<any>((resolve, reject) => {
    socket.on("connect", () =>
      socket.emit(
        "runner.hello",
        {
          v: 1,
          name: "raw runner",
          adapters: [{ agent: "codex", profiles: ["read-only", "workspace-write"], version: "raw" }],
          repositories: ["demo"],
          capacity: 10,
          ...hello,
        },
        resolve,
      ),
    );
    socket.on("connect_error", reject);
  });
  if (!answer.ok) throw new Error(`hello refused: ${answer.error}`);
  return {
    socket,
    starts,
    publicKey: answer.lease_public_key as string,
    async startFor(runId: string): Promise<StartRequest> {
      await until(() => starts.some((s) => s.run_id === runId), `runner.start for ${runId}`);
      return starts.find((s) => s.run_id === runId)!;
    },
    close: () => socket.disconnect(),
  };
}
