import http from "node:http";
import type { AddressInfo } from "node:net";
import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { EventEncoder } from "@ag-ui/encoder";

/**
 * An AG-UI agent over HTTP built with the real `@ag-ui/core` event types and
 * `@ag-ui/encoder` (server-sent events): each run streams what `script` yields for its
 * input. Only the agent's choices are scripted; the wire is AG-UI's own.
 */
export type AgentScript = (input: RunAgentInput, index: number) => AsyncIterable<BaseEvent>;

export interface AgUiAgent {
  url: string;
  inputs: RunAgentInput[];
  /** Runs whose client went away before the stream ended (an abort). */
  aborted: number;
  close(): Promise<void>;
}

export async function startAgUiAgent(script: AgentScript): Promise<AgUiAgent> {
  const inputs: RunAgentInput[] = [];
  const state = { aborted: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RunAgentInput;
      const index = inputs.push(input) - 1;
      const encoder = new EventEncoder({ accept: req.headers.accept });
      res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
      let gone = false;
      res.on("close", () => {
        if (!res.writableFinished) {
          gone = true;
          state.aborted++;
        }
      });
      try {
        for await (const e of script(input, index)) {
          if (gone) return;
          res.write(encoder.encode(e));
        }
        res.end();
      } catch (e) {
        if (!gone) res.end(encoder.encode({ type: EventType.RUN_ERROR, message: String(e) } as BaseEvent));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    inputs,
    get aborted() {
      return state.aborted;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
