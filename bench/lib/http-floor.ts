import { spawn } from "node:child_process";
import path from "node:path";
import { newId } from "../../lib/core/protocol";
import { Client } from "./http";
import { summarize, usageMeter, waitQuiet, type Latency, type Usage } from "./stats";

export interface FloorResult {
  clients: number;
  reqPerSec: number;
  lat: Latency;
  client: Usage;
  busyBefore: number;
}

/**
 * The same closed-loop client, the same single-event bodies, against bench/lib/floor-server.mjs:
 * what loopback HTTP alone allows on this machine, so a Chips figure can be read against it.
 */
export async function httpFloor(clients: number, seconds: number, quietWait: number): Promise<FloorResult> {
  const proc = spawn(process.execPath, [path.join(import.meta.dirname, "floor-server.mjs")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("floor server did not start")), 10_000);
      proc.stdout!.on("data", (d) => {
        const m = /listening on (\S+)/.exec(String(d));
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      proc.once("exit", () => reject(new Error("floor server exited")));
    });
    const c = new Client(url, clients);
    const body = JSON.stringify({
      v: 1,
      type: "message.posted",
      id: newId("event"),
      workspace_id: newId("workspace"),
      space_id: newId("space"),
      actor: { kind: "harness", id: newId("harness") },
      idempotency_key: "bench-1",
      text: "bench-1 step three done",
    });
    const run = async (ms: number, lat: number[] | null) => {
      const until = performance.now() + ms;
      let n = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          for (let i = 0; i < 1_000_000 && performance.now() < until; i++) {
            const t = performance.now();
            const r = await c.request("POST", "/", "floor", body);
            if (r.status !== 201) throw new Error(`floor server answered ${r.status}`);
            lat?.push(performance.now() - t);
            n++;
          }
        }),
      );
      return n;
    };
    const busyBefore = await waitQuiet(quietWait);
    await run(Math.min(1000, seconds * 200), null);
    const lat: number[] = [];
    const meter = usageMeter();
    const t0 = performance.now();
    const n = await run(seconds * 1000, lat);
    const wall = (performance.now() - t0) / 1000;
    const client = meter.stop();
    c.close();
    return { clients, reqPerSec: n / wall, lat: summarize(lat), client, busyBefore };
  } finally {
    proc.kill("SIGTERM");
  }
}
