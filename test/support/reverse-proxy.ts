import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** Debian's HAProxy (the `haproxy` package; .ci/run installs it). */
const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((p) => fs.existsSync(p));

export interface ReverseProxy {
  url: string;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.once("error", reject);
  });

/** Whether something accepts connections on 127.0.0.1:port now. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = net.connect(port, "127.0.0.1");
    c.once("connect", () => (c.destroy(), resolve(true)));
    c.once("error", () => resolve(false));
  });

/**
 * A real HAProxy on 127.0.0.1 in front of `backend` (Chips), as an operator runs one: HTTP
 * mode, `option forwardfor` (it appends the address its client connected from to
 * X-Forwarded-For), WebSocket upgrades tunnelled. Fails plainly when HAProxy is missing.
 */
export async function startHaproxy(backend: string): Promise<ReverseProxy> {
  if (!HAPROXY)
    throw new Error("haproxy is not installed (apt-get install haproxy; .ci/run installs it): this test needs it");
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-haproxy-"));
  const cfg = path.join(dir, "haproxy.cfg");
  const to = new URL(backend);
  fs.writeFileSync(
    cfg,
    [
      "global",
      "  maxconn 256",
      "defaults",
      "  mode http",
      "  option forwardfor",
      "  timeout connect 5s",
      "  timeout client 60s",
      "  timeout server 60s",
      "  timeout tunnel 60s",
      "frontend front",
      `  bind 127.0.0.1:${port}`,
      "  default_backend chips",
      "backend chips",
      // Chips binds 127.0.0.1; "localhost" might resolve to ::1 first.
      `  server chips ${to.hostname === "localhost" ? "127.0.0.1" : to.hostname}:${to.port}`,
      "",
    ].join("\n"),
  );
  // -db: stay in the foreground, so this process is HAProxy and stopping it stops the proxy.
  const proc = spawn(HAPROXY, ["-db", "-f", cfg], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  let exited = false;
  const gone = new Promise<void>((r) => proc.once("exit", () => ((exited = true), r())));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (exited) throw new Error(`haproxy exited before listening:\n${out}`);
    if (Date.now() > deadline) {
      proc.kill("SIGTERM");
      throw new Error(`haproxy did not listen on 127.0.0.1:${port} within 10 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50)); // polling the listener, not waiting for time to pass
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (!exited) proc.kill("SIGTERM");
      await gone;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A request from a given loopback address (127.0.0.2, 127.0.0.3, …: all of 127/8 is this
 * machine), so that requests through one proxy come from clients it tells apart.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? "GET", headers: init.headers, localAddress }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", reject);
    });
    req.once("error", reject);
    req.end(init.body);
  });
}
