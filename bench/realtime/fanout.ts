import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Workspace } from "../lib/api";
import type { ClientsReport, ClientsStart } from "./clients";
import { Hist, monoMs } from "../lib/hist";
import { postOpenLoop, type PostResult } from "./poster";
import { machineMeter, othersMeter, pidCpuMs } from "../lib/proc";

export interface FanoutOpts {
  label: string;
  url: string;
  ws: Workspace;
  /** Socket auth token (a person token on Chips; null on the baseline). */
  socketToken: string | null;
  clients: number;
  clientProcs: number;
  rate: number;
  warmupS: number;
  seconds: number;
  serverPid: number | undefined;
  /** Called around the posting window (a server CPU profile, say). */
  window?: { start(): Promise<void>; stop(): Promise<void> };
}

export interface FanoutResult {
  label: string;
  clients: number;
  rate: number;
  latency: Hist;
  /** Deliveries expected (events stored × clients) and received, distinct. */
  expected: number;
  delivered: number;
  missing: number;
  outOfOrder: number;
  duplicates: number;
  prevBreaks: number;
  disconnects: number;
  post: PostResult;
  /** CPU over the posting window, % of one core. */
  cpu: { server: number; clients: number; poster: number; machine: number; others: number; load1: number };
  /** Server CPU time per event stored over the posting window, ms: what one event costs it, whatever the load. */
  serverMsPerEvent: number;
  /** Events stored per second from the first POST to the last answer: the server's throughput when it falls behind. */
  storedRate: number;
  /** Other processes' CPU over the window by command (PostgreSQL's backends show here as `postgres`). */
  otherProcs: { comm: string; pct: number }[];
  clientLoopP99: number;
}

export function ask<T>(child: ChildProcess, msg: object, want: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`client process: no "${want}" within ${timeoutMs} ms`)), timeoutMs);
    const on = (m: { op: string; message?: string }) => {
      if (m.op !== want && m.op !== "error") return;
      clearTimeout(timer);
      child.off("message", on);
      if (m.op === "error") reject(new Error(m.message));
      else resolve(m as T);
    };
    child.on("message", on);
    child.send(msg);
  });
}

/** N clients in `clientProcs` child processes, an open-loop poster here, the server in its own process. */
export async function runFanout(o: FanoutOpts): Promise<FanoutResult> {
  const per = Array.from(
    { length: o.clientProcs },
    (_, i) => Math.floor(o.clients / o.clientProcs) + (i < o.clients % o.clientProcs ? 1 : 0),
  ).filter((n) => n > 0);
  const children = per.map(() =>
    fork(path.join(import.meta.dirname, "clients.ts"), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  try {
    await Promise.all(
      children.map((c, i) =>
        ask(
          c,
          { op: "start", url: o.url, token: o.socketToken, spaceId: o.ws.space_id, n: per[i] } satisfies ClientsStart,
          "ready",
          120_000,
        ),
      ),
    );
    const cpu0 = {
      server: pidCpuMs(o.serverPid),
      clients: children.map((c) => pidCpuMs(c.pid)),
      self: process.cpuUsage(),
    };
    await o.window?.start();
    const meter = machineMeter();
    const others = othersMeter();
    const t0 = monoMs();
    const post = await postOpenLoop(o.url, o.ws, o.rate, o.warmupS, o.seconds);
    const wall = monoMs() - t0;
    const m = meter.stop();
    const otherProcs = others.stop([o.serverPid, process.pid, ...children.map((c) => c.pid)]);
    await o.window?.stop();
    const serverCpu = pidCpuMs(o.serverPid) - cpu0.server;
    const clientCpu = children.reduce((a, c, i) => a + pidCpuMs(c.pid) - cpu0.clients[i], 0);
    const self = process.cpuUsage(cpu0.self);
    const reports = await Promise.all(
      children.map((c) => ask<ClientsReport>(c, { op: "drain", expect: post.ok, timeoutMs: 10_000 }, "report", 60_000)),
    );

    const latency = new Hist();
    const sockets = reports.flatMap((r) => r.sockets);
    for (const r of reports) latency.merge(Hist.from(r.hist));
    const sum = (f: (s: (typeof sockets)[number]) => number) => sockets.reduce((a, s) => a + f(s), 0);
    const delivered = sum((s) => s.distinct);
    const expected = post.ok * sockets.length;
    return {
      label: o.label,
      clients: o.clients,
      rate: o.rate,
      latency,
      expected,
      delivered,
      missing: Math.max(0, expected - delivered),
      outOfOrder: sum((s) => s.outOfOrder),
      duplicates: sum((s) => s.duplicates),
      prevBreaks: sum((s) => s.prevBreaks),
      disconnects: sum((s) => s.disconnects),
      post,
      cpu: {
        server: (serverCpu / wall) * 100,
        clients: (clientCpu / wall) * 100,
        poster: ((self.user + self.system) / 1000 / wall) * 100,
        machine: m.busy,
        others: m.busy - ((serverCpu + clientCpu + (self.user + self.system) / 1000) / wall) * 100,
        load1: m.load1,
      },
      serverMsPerEvent: serverCpu / Math.max(1, post.ok),
      storedRate: (post.ok / wall) * 1000,
      otherProcs,
      clientLoopP99: Math.max(...reports.map((r) => r.loopP99)),
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  }
}
