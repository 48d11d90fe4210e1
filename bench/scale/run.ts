import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { adminToken, createWorkspace, keepAlive, message, request, type Workspace } from "../lib/api";
import { Hist, monoMs } from "../lib/hist";
import { sleep } from "../lib/proc";
import { RawHttp } from "../realtime/raw-http";
import { ask } from "../realtime/fanout";
import type { Assignment, ClientsReport, ClientsStart } from "./clients";

/** A workspace of the bench and its rooms (the first is the one it was made with). */
export interface Tenant {
  ws: Workspace;
  rooms: string[];
}

export const log = (s: string) => process.stderr.write(`[scale] ${s}\n`);
const MIB = 2 ** 20;

/** W workspaces of R rooms each, through the admin API, 8 requests at a time. */
export async function makeTenants(url: string, dataDir: string, w: number, r: number): Promise<Tenant[]> {
  const agent = keepAlive(8);
  const admin = adminToken(dataDir);
  const out: Tenant[] = [];
  try {
    for (let i = 0; i < w; i += 8) {
      const made = await Promise.all(
        Array.from({ length: Math.min(8, w - i) }, async () => {
          const ws = await createWorkspace(agent, url, admin);
          const rooms = [ws.space_id];
          for (let k = 1; k < r; k++) {
            const s = await request(agent, `${url}/api/v1/workspaces/${ws.workspace_id}/spaces`, "POST", admin, {
              name: `room ${k}`,
            });
            if (s.status !== 201) throw new Error(`room: ${s.status} ${s.body}`);
            rooms.push((JSON.parse(s.body) as { id: string }).id);
          }
          return { ws, rooms };
        }),
      );
      out.push(...made);
    }
  } finally {
    agent.destroy();
  }
  return out;
}

/** One message into each of `rooms` (8 at a time), each POST's latency. */
export async function postEach(url: string, targets: { ws: Workspace; room: string }[], text: string): Promise<Hist> {
  const agent = keepAlive(8);
  const h = new Hist();
  try {
    for (let i = 0; i < targets.length; i += 8)
      await Promise.all(
        targets.slice(i, i + 8).map(async ({ ws, room }) => {
          const t0 = monoMs();
          const r = await request(agent, `${url}/api/v1/events`, "POST", ws.token, {
            ...message(ws, text),
            space_id: room,
          });
          if (r.status !== 201) throw new Error(`post: ${r.status} ${r.body.slice(0, 300)}`);
          h.add(monoMs() - t0);
        }),
      );
  } finally {
    agent.destroy();
  }
  return h;
}

/** MiB: the live heap after a full GC and the resident set, as bench/lib/mem-hook.ts last wrote them. */
export interface Mem {
  heap: number;
  rss: number;
}

/** Memory once it stops moving: three fresh readings whose live heap is within 1 % (at most 60 s). */
export async function settled(file: string): Promise<Mem> {
  const seen: (Mem & { at: number })[] = [];
  for (let i = 0; i < 120; i++) {
    try {
      const m = JSON.parse(fs.readFileSync(file, "utf8"));
      if (m.at !== seen.at(-1)?.at) seen.push({ at: m.at, heap: m.heapUsed / MIB, rss: m.rss / MIB });
    } catch {
      // not written yet
    }
    const last = seen.slice(-3).map((x) => x.heap);
    if (last.length === 3 && Math.max(...last) - Math.min(...last) <= 0.01 * Math.max(...last)) return seen.at(-1)!;
    await sleep(500);
  }
  throw new Error(`memory did not settle: ${JSON.stringify(seen.slice(-3))}`);
}

/** Clients in `procs` child processes, every assignment connected and joined; the join times. */
export async function connectClients(url: string, sockets: Assignment[], procs: number) {
  const children: ChildProcess[] = Array.from({ length: procs }, () =>
    fork(path.join(import.meta.dirname, "clients.ts"), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  const t0 = monoMs();
  const joins = new Hist();
  try {
    const ready = await Promise.all(
      children.map((c, i) =>
        ask<{ joins: ReturnType<Hist["toJSON"]> }>(
          c,
          { op: "start", url, sockets: sockets.filter((_, k) => k % procs === i) } satisfies ClientsStart,
          "ready",
          1_200_000,
        ),
      ),
    );
    for (const r of ready) joins.merge(Hist.from(r.joins));
  } catch (e) {
    for (const c of children) c.kill();
    throw e;
  }
  return { children, joins, connectS: (monoMs() - t0) / 1000 };
}

/** Wait until the clients hold `expected` events in all (or `timeoutMs`), then their reports. */
export async function collect(children: ChildProcess[], expected: number, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = (
      await Promise.all(children.map((c) => ask<{ got: number }>(c, { op: "progress" }, "progress", 30_000)))
    ).reduce((a, p) => a + p.got, 0);
    if (got >= expected || Date.now() > until) break;
    await sleep(200);
  }
  return Promise.all(children.map((c) => ask<ClientsReport>(c, { op: "report" }, "report", 60_000)));
}

export interface Load {
  /** Rooms posted to at `busyRate` each; every other room shares what is left of `total`. */
  busy: { ws: Workspace; room: string }[];
  quiet: { ws: Workspace; room: string }[];
  busyRate: number;
  total: number;
  seconds: number;
}

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  firstError: string | null;
  rate: number;
  /** Time from each POST's scheduled send to its answer (the commit, for Chips): delivery's floor. */
  answers: Hist;
  /** Events stored per room. */
  perRoom: Map<string, number>;
}

/**
 * Open-loop poster: single-event POSTs at `total` a second (a 1 ms timer sends every event
 * whose time has come), never waiting for answers; each event goes to a busy room for its
 * share of the total (`busyRate` × busy rooms), else to the next quiet room in turn. The text
 * carries the scheduled send time on the monotonic clock and the room's class.
 */
export async function postLoad(url: string, load: Load): Promise<LoadResult> {
  const u = new URL(url);
  const conn = new RawHttp(u.hostname, Number(u.port), 64);
  const n = Math.round(load.total * load.seconds);
  const share = Math.min(1, (load.busy.length * load.busyRate) / load.total);
  const gap = 1000 / load.total;
  const perRoom = new Map<string, number>();
  const res: LoadResult = { sent: 0, ok: 0, failed: 0, firstError: null, rate: 0, answers: new Hist(), perRoom };
  let acc = 0;
  let b = 0;
  let q = 0;
  let done = 0;
  let finish!: () => void;
  const allDone = new Promise<void>((r) => (finish = r));
  const filler = "x".repeat(60);
  const t0 = monoMs() + 20;
  const send = (i: number) => {
    acc += share;
    const isBusy = acc >= 1 && load.busy.length > 0;
    if (isBusy) acc -= 1;
    const target = isBusy ? load.busy[b++ % load.busy.length] : load.quiet[q++ % load.quiet.length];
    const at = t0 + i * gap;
    const ev = {
      ...message(target.ws, `sc t=${at.toFixed(3)} c=${isBusy ? "b" : "q"} ${filler}`),
      space_id: target.room,
    };
    res.sent++;
    conn
      .post("/api/v1/events", target.ws.token, JSON.stringify(ev))
      .then(
        (r) => {
          if (r.status === 201 || r.status === 200) {
            res.answers.add(monoMs() - at);
            res.ok++;
            perRoom.set(target.room, (perRoom.get(target.room) ?? 0) + 1);
          } else {
            res.failed++;
            res.firstError ??= `${r.status} ${r.body.slice(0, 200)}`;
          }
        },
        (e) => {
          res.failed++;
          res.firstError ??= String(e);
        },
      )
      .finally(() => {
        if (++done === n) finish();
      });
  };
  let i = 0;
  let lastLeft = t0;
  const tick = () => {
    const now = monoMs();
    while (i < n && t0 + i * gap <= now) {
      send(i++);
      lastLeft = now;
    }
    if (i < n) setTimeout(tick, 1);
  };
  setTimeout(tick, 20);
  await allDone;
  conn.close();
  res.rate = (n / Math.max(1, lastLeft - t0 + gap)) * 1000;
  return res;
}

/** Time a fresh socket takes from connecting to holding a room's history (the join's answer), `n` times. */
export async function catchUps(url: string, targets: { token: string | null; room: string }[]): Promise<Hist> {
  const { io } = await import("socket.io-client");
  const h = new Hist();
  for (const t of targets) {
    const t0 = monoMs();
    const s = io(url, {
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
      auth: t.token ? { token: t.token } : undefined,
    });
    await new Promise<void>((resolve, reject) => {
      s.once("connect", () => resolve());
      s.once("connect_error", reject);
    });
    const ack = (await s.timeout(60_000).emitWithAck("join", { v: 1, space_id: t.room, after_seq: 0 })) as {
      ok?: boolean;
    };
    if (!ack.ok) throw new Error("catch-up join refused");
    h.add(monoMs() - t0);
    s.disconnect();
  }
  return h;
}

/** Sum of the clients' counts against what was stored per room. */
export function deliveries(reports: ClientsReport[], perRoom: Map<string, number>) {
  const busy = new Hist();
  const quiet = new Hist();
  let lost = 0;
  let dup = 0;
  let reorder = 0;
  let breaks = 0;
  let got = 0;
  let disconnects = 0;
  for (const r of reports) {
    busy.merge(Hist.from(r.busy));
    quiet.merge(Hist.from(r.quiet));
    for (const s of r.sockets) {
      got += s.got;
      lost += Math.max(0, (perRoom.get(s.spaceId) ?? 0) - s.got);
      dup += s.duplicates;
      reorder += s.outOfOrder;
      breaks += s.prevBreaks;
      disconnects += s.disconnects;
    }
  }
  return {
    busy,
    quiet,
    lost,
    dup,
    reorder,
    breaks,
    got,
    disconnects,
    clientCpuMs: reports.reduce((a, r) => a + r.cpuMs, 0),
  };
}

export const expectedDeliveries = (sockets: Assignment[], perRoom: Map<string, number>) =>
  sockets.reduce((a, s) => a + (perRoom.get(s.spaceId) ?? 0), 0);
