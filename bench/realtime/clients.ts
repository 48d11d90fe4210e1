/**
 * A client child process: N Socket.IO clients of one room, each joined with the room's
 * head and recording, per event: arrival latency (arrival on the monotonic clock minus the
 * send time the poster wrote into the event's text), out-of-order arrivals (seq not greater
 * than the last seen), duplicates, `prev_seq` breaks, and at the end what never came.
 * Driven over IPC by bench/realtime/fanout.ts.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { io, type Socket } from "socket.io-client";
import { Hist, monoMs, type HistJson } from "../lib/hist";

export interface ClientsStart {
  op: "start";
  url: string;
  token: string | null;
  spaceId: string;
  n: number;
}

export interface SocketStats {
  distinct: number;
  outOfOrder: number;
  duplicates: number;
  prevBreaks: number;
  disconnects: number;
}

export interface ClientsReport {
  op: "report";
  hist: HistJson;
  sockets: SocketStats[];
  cpuMs: number;
  loopP99: number;
  loopMax: number;
}

const SEND = /^rt t=([\d.]+) w=(\d)/;

class Tracked {
  joined = false;
  last = 0;
  seen = new Uint8Array(1 << 14);
  base = 0;
  stats: SocketStats = { distinct: 0, outOfOrder: 0, duplicates: 0, prevBreaks: 0, disconnects: 0 };
  constructor(readonly socket: Socket) {}

  mark(seq: number): boolean {
    const i = seq - this.base;
    if (i < 0) return false;
    if (i >= this.seen.length) {
      const grown = new Uint8Array(Math.max(this.seen.length * 2, i + 1024));
      grown.set(this.seen);
      this.seen = grown;
    }
    if (this.seen[i]) return false;
    this.seen[i] = 1;
    return true;
  }
}

const hist = new Hist();
const loop = monitorEventLoopDelay({ resolution: 10 });
const tracked: Tracked[] = [];

function onEvents(t: Tracked, batch: { seq: number; prev_seq?: number; text?: unknown }[]) {
  if (!t.joined) return; // the catch-up before the join's ack: older than the run
  const now = monoMs();
  for (const e of batch) {
    if (e.seq <= t.last) t.stats.outOfOrder++;
    if (typeof e.prev_seq === "number" && t.last > 0 && e.seq > t.last && e.prev_seq !== t.last) t.stats.prevBreaks++;
    if (t.mark(e.seq)) {
      t.stats.distinct++;
      const m = typeof e.text === "string" ? SEND.exec(e.text) : null;
      if (m && m[2] === "1") hist.add(now - Number(m[1]));
    } else t.stats.duplicates++;
    if (e.seq > t.last) t.last = e.seq;
  }
}

async function connectOne(s: ClientsStart): Promise<Tracked> {
  const socket = io(s.url, {
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    auth: s.token ? { token: s.token } : undefined,
  });
  const t = new Tracked(socket);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("connect timeout")), 30_000);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once("connect_error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
  socket.on("events", (b: { seq: number }[]) => onEvents(t, b));
  socket.on("disconnect", () => t.stats.disconnects++);
  const ack = (await socket.timeout(30_000).emitWithAck("join", { v: 1, space_id: s.spaceId, after_seq: 0 })) as {
    ok?: boolean;
    head_seq?: number;
    error?: string;
  };
  if (!ack.ok) throw new Error(`join refused: ${ack.error}`);
  t.last = ack.head_seq ?? 0;
  t.base = t.last + 1;
  t.joined = true;
  return t;
}

async function start(s: ClientsStart) {
  // In waves, so 200 handshakes do not all land at once.
  for (let i = 0; i < s.n; i += 20) {
    const wave = await Promise.all(Array.from({ length: Math.min(20, s.n - i) }, () => connectOne(s)));
    tracked.push(...wave);
  }
  loop.enable();
}

async function drain(expect: number, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && tracked.some((t) => t.stats.distinct < expect))
    await new Promise((r) => setTimeout(r, 50));
  loop.disable();
  const cpu = process.cpuUsage();
  const report: ClientsReport = {
    op: "report",
    hist: hist.toJSON(),
    sockets: tracked.map((t) => t.stats),
    cpuMs: (cpu.user + cpu.system) / 1000,
    loopP99: loop.percentile(99) / 1e6,
    loopMax: loop.max / 1e6,
  };
  for (const t of tracked) t.socket.disconnect();
  return report;
}

/** What fanout.ts sends this child over IPC. */
type FromParent = ({ op: "start" } & ClientsStart) | { op: "drain"; expect: number; timeoutMs: number };

process.on("message", (m: FromParent) => {
  if (m.op === "start")
    start(m).then(
      () => process.send!({ op: "ready" }),
      (e) => process.send!({ op: "error", message: String(e) }),
    );
  else if (m.op === "drain")
    void drain(m.expect, m.timeoutMs).then((r) => {
      process.send!(r, () => process.exit(0));
    });
});
// Never outlive the bench: a parent gone means stop.
process.on("disconnect", () => process.exit(0));
setTimeout(() => process.exit(3), 15 * 60_000).unref();
