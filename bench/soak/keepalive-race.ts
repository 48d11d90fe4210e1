/**
 * The soak's ECONNRESET, reproduced: `node --import tsx bench/soak/keepalive-race.ts`.
 *
 * A node:http server with Node's default keep-alive (as Chips' server.ts has) in a child
 * process, and one keep-alive agent with a single socket in this one. After one request the
 * socket idles for a chosen time; then this process's loop is kept busy for 60 ms (as the
 * open-loop poster's is under load) and the next request goes out on the pooled socket. If
 * the server closed it inside that busy window, the FIN was never read, the request is
 * written into a closed connection and the answer is ECONNRESET on a reused socket. With the
 * bench agents' 4 s `timeout` (bench/lib/api.ts) the pool drops the socket first and every
 * request opens a fresh one. Prints, per idle time, what each agent saw.
 */
import { fork } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sleep } from "../lib/proc";

const IDLE_MS = [4900, 5500, 5900, 5980, 6000, 6020, 6040, 6100, 6500];
const BUSY_MS = 60;

function serve() {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  srv.listen(0, "127.0.0.1", () => process.send?.((srv.address() as AddressInfo).port));
}

const busy = (ms: number) => {
  const t = performance.now();
  while (performance.now() - t < ms);
};

function post(agent: http.Agent, port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request({ agent, port, host: "127.0.0.1", method: "POST", path: "/" }, (r) => {
      r.resume();
      r.on("end", () => resolve(req.reusedSocket ? "ok (reused)" : "ok (new socket)"));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve(`${e.code} (reused ${req.reusedSocket})`));
    req.end("{}");
  });
}

async function main() {
  const child = fork(import.meta.filename, ["serve"], { execArgv: ["--import", "tsx"] });
  const port = await new Promise<number>((r) => child.once("message", (m) => r(Number(m))));
  try {
    for (const [label, timeout] of [
      ["agent without timeout (before)", undefined],
      ["agent timeout 4,000 ms (after)", 4000],
    ] as const) {
      console.log(label);
      for (const idle of IDLE_MS) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1, timeout });
        await post(agent, port);
        await sleep(idle - BUSY_MS); // the measured thing: how long the socket idles
        busy(BUSY_MS);
        console.log(`  idle ${idle} ms: ${await post(agent, port)}`);
        agent.destroy();
      }
    }
  } finally {
    child.kill();
  }
}

if (process.argv[2] === "serve") serve();
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
