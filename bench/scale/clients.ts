/**
 * A client child process of the scale bench: many Socket.IO clients, each in one room of one
 * workspace (its person token; none for the bare relay), joined before the load starts. Per
 * socket it counts what arrived, arrivals out of order or twice, and `prev_seq` breaks (a hole:
 * something lost); per room class (busy, quiet) the arrival latency (arrival on the monotonic
 * clock minus the send time the poster wrote into the text); per socket the time from starting
 * to connect to the join's answer (with the room's catch-up). Driven over IPC by bench/scale/run.ts.
 */
import { io, type Socket } from "socket.io-client";
import { Hist, monoMs, type HistJson } from "../lib/hist";

export interface Assignment {
  token: string | null;
  spaceId: string;
}

export interface ClientsStart {
  op: "start";
  url: string;
  sockets: Assignment[];
}

export interface SocketCount {
  spaceId: string;
  got: number;
  outOfOrder: number;
  duplicates: number;
  prevBreaks: number;
  disconnects: number;
}

export interface ClientsReport {
  op: "report";
  busy: HistJson;
  quiet: HistJson;
  sockets: SocketCount[];
  cpuMs: number;
}

const SEND = /^sc t=([\d.]+) c=([bq])/;
const hists = { b: new Hist(), q: new Hist() };
const joins = new Hist();
const clients: { socket: Socket; count: SocketCount; last: number; seen: Set<number> }[] = [];

async function connectOne(url: string, a: Assignment) {
  const t0 = monoMs();
  const socket = io(url, {
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    // A busy machine answers thousands of handshakes slowly: the default 20 s is not a failure here.
    timeout: 600_000,
    auth: a.token ? { token: a.token } : undefined,
  });
  const c = {
    socket,
    last: 0,
    seen: new Set<number>(),
    count: { spaceId: a.spaceId, got: 0, outOfOrder: 0, duplicates: 0, prevBreaks: 0, disconnects: 0 },
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("connect timeout")), 600_000);
    socket.once("connect", () => (clearTimeout(timer), resolve()));
    socket.once("connect_error", (e) => (clearTimeout(timer), reject(e)));
  });
  let joined = false;
  socket.on("events", (batch: { seq: number; prev_seq?: number | null; text?: unknown }[]) => {
    if (!joined) return; // the catch-up before the join's answer: older than the load
    const now = monoMs();
    for (const e of batch) {
      if (c.seen.has(e.seq)) c.count.duplicates++;
      else {
        c.seen.add(e.seq);
        c.count.got++;
      }
      if (e.seq <= c.last) c.count.outOfOrder++;
      else {
        if (e.prev_seq !== undefined && e.prev_seq !== null && c.last > 0 && e.prev_seq !== c.last)
          c.count.prevBreaks++;
        c.last = e.seq;
      }
      const m = typeof e.text === "string" ? SEND.exec(e.text) : null;
      if (m) hists[m[2] as "b" | "q"].add(now - Number(m[1]));
    }
  });
  socket.on("disconnect", () => c.count.disconnects++);
  const ack = (await socket.timeout(600_000).emitWithAck("join", { v: 1, space_id: a.spaceId, after_seq: 0 })) as {
    ok?: boolean;
    head_seq?: number;
    error?: string;
  };
  if (!ack.ok) throw new Error(`join refused: ${ack.error}`);
  c.last = ack.head_seq ?? 0;
  joined = true;
  joins.add(monoMs() - t0);
  clients.push(c);
}

async function start(s: ClientsStart) {
  // In waves, so thousands of handshakes do not all land at once; a join waits mostly on the
  // store, so 50 at a time keep a loaded machine's server busier than 20 did.
  for (let i = 0; i < s.sockets.length; i += 50)
    await Promise.all(s.sockets.slice(i, i + 50).map((a) => connectOne(s.url, a)));
}

/** What arrived since the last report; the counts start again from zero (the next window). */
function report(): ClientsReport {
  const cpu = process.cpuUsage();
  const r: ClientsReport = {
    op: "report",
    busy: hists.b.toJSON(),
    quiet: hists.q.toJSON(),
    sockets: clients.map((c) => ({ ...c.count })),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
  hists.b = new Hist();
  hists.q = new Hist();
  for (const c of clients)
    Object.assign(c.count, { got: 0, outOfOrder: 0, duplicates: 0, prevBreaks: 0, disconnects: 0 });
  return r;
}

type FromParent = ClientsStart | { op: "progress" } | { op: "report" } | { op: "stop" };

process.on("message", (m: FromParent) => {
  if (m.op === "start")
    start(m).then(
      () => process.send!({ op: "ready", joins: joins.toJSON() }),
      (e) => process.send!({ op: "error", message: String(e) }),
    );
  else if (m.op === "progress") process.send!({ op: "progress", got: clients.reduce((a, c) => a + c.count.got, 0) });
  else if (m.op === "report") process.send!(report());
  else if (m.op === "stop") {
    for (const c of clients) c.socket.disconnect();
    process.exit(0);
  }
});
// Never outlive the bench: a parent gone means stop.
process.on("disconnect", () => process.exit(0));
setTimeout(() => process.exit(3), 30 * 60_000).unref();
