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
  /** With `balance`: each node's name and state as HAProxy's checks see it (UP, DOWN, …). */
  states(): Promise<{ name: string; status: string; check: string }[]>;
  stop(): Promise<void>;
}

export const freePort = () =>
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

export interface HaproxyOptions {
  /** The port to listen on (a node's CHIPS_PUBLIC_URL may have to name it first); a free one otherwise. */
  port?: number;
  /**
   * Several nodes: round robin, sticky by HAProxy's own cookie (`SERVERID`, the node's name
   * `n1`, `n2`, …), as Socket.IO's HTTP long-polling needs — each poll must reach the node
   * that holds its session. A node that fails its readiness check is taken out of rotation,
   * and a client whose cookie names it is sent to another.
   */
  balance?: boolean;
}

/**
 * A real HAProxy on 127.0.0.1 in front of `backend` (Chips) or of several nodes, as an operator
 * runs one: HTTP mode, `option forwardfor` (it appends the address its client connected from to
 * X-Forwarded-For), WebSocket upgrades tunnelled; with `balance`, the recipe of
 * docs/OPERATIONS.md [SCL2]. Fails plainly when HAProxy is missing.
 */
export async function startHaproxy(backend: string | string[], opts: HaproxyOptions = {}): Promise<ReverseProxy> {
  if (!HAPROXY)
    throw new Error("haproxy is not installed (apt-get install haproxy; .ci/run installs it): this test needs it");
  const port = opts.port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-haproxy-"));
  const cfg = path.join(dir, "haproxy.cfg");
  // Chips binds 127.0.0.1; "localhost" might resolve to ::1 first.
  const hostPort = (u: string) => {
    const to = new URL(u);
    return `${to.hostname === "localhost" ? "127.0.0.1" : to.hostname}:${to.port}`;
  };
  const nodes = Array.isArray(backend) ? backend : [backend];
  fs.writeFileSync(
    cfg,
    (opts.balance
      ? balancedConfig(port, nodes.map(hostPort), path.join(dir, "stats.sock"))
      : single(port, hostPort(nodes[0]))
    ).join("\n"),
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
  if (opts.balance) {
    // Ready when every node passed its readiness check: a test's first request may go to any.
    const sock = path.join(dir, "stats.sock");
    for (;;) {
      const states = await serverStates(sock);
      if (states.length === nodes.length && states.every((s) => s.status === "UP")) break;
      if (exited || Date.now() > deadline + 20_000) {
        proc.kill("SIGTERM");
        throw new Error(`haproxy's nodes did not all pass their checks: ${JSON.stringify(states)}\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 100)); // polling the proxy's own state, not waiting for time to pass
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    states: () => serverStates(path.join(dir, "stats.sock")),
    async stop() {
      if (!exited) proc.kill("SIGTERM");
      await gone;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `show stat` on HAProxy's admin socket: the backend's servers and their states. */
function serverStates(sock: string): Promise<{ name: string; status: string; check: string }[]> {
  return new Promise((resolve) => {
    let text = "";
    const c = net.connect(sock);
    c.on("connect", () => c.end("show stat\n"));
    c.on("data", (d) => (text += d));
    c.on("error", () => resolve([]));
    c.on("close", () => {
      const [head, ...rows] = text.split("\n").filter((l) => l.trim());
      const cols = (head ?? "").replace(/^# /, "").split(",");
      const at = (k: string) => cols.indexOf(k);
      resolve(
        rows
          .map((r) => r.split(","))
          .filter((f) => f[at("pxname")] === "chips" && /^n\d+$/.test(f[at("svname")]))
          .map((f) => ({ name: f[at("svname")], status: f[at("status")], check: f[at("check_status")] })),
      );
    });
  });
}

function single(port: number, node: string): string[] {
  return [
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
    `  server chips ${node}`,
    "",
  ];
}

/** docs/OPERATIONS.md's HAProxy recipe, on loopback with short check intervals. */
function balancedConfig(port: number, nodes: string[], stats: string): string[] {
  return [
    "global",
    "  maxconn 4096",
    `  stats socket ${stats} mode 600 level admin`,
    "defaults",
    "  mode http",
    "  option forwardfor",
    "  option redispatch",
    "  retries 3",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  timeout tunnel 1h",
    "frontend front",
    `  bind 127.0.0.1:${port}`,
    "  default_backend chips",
    "backend chips",
    "  balance roundrobin",
    "  cookie SERVERID insert indirect nocache",
    "  option httpchk",
    // HTTP/1.1 with a Host: Chips answers a request without one 400.
    "  http-check send meth GET uri /api/v1/health ver HTTP/1.1 hdr Host localhost",
    "  http-check expect status 200",
    "  default-server inter 500ms fall 2 rise 2",
    ...nodes.map((n, i) => `  server n${i + 1} ${n} check cookie n${i + 1}`),
    "",
  ];
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
