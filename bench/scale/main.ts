/**
 * Scale bench: many teams on one node. W workspaces × R rooms × S sockets a room, a harness
 * per workspace posting single events open-loop — a few busy rooms at `--busy-rate` each, the
 * rest sharing what is left of `--rate` — beside a bare Socket.IO relay (bench/scale/relay.ts)
 * with the same shape, clients and poster in the same run. Never run in CI.
 *
 *   node --import tsx bench/scale/main.ts [--db postgres|pglite] [--shape 200x5x10]
 *        [--rate 1000] [--busy 20] [--busy-rate 40] [--seconds 10] [--growth 100,200,400,800]
 *        [--growth-rooms 5] [--growth-rate 500] [--idle 5] [--client-procs 4] [--skip-growth] [--skip-headline]
 *        [--quiet-wait S] [--warmup S] [--ceiling 2000,3000]
 *
 * --ceiling R1,R2: after the aim's window, more windows at these rates on the same clients,
 * Chips and relay alike: the highest rate each holds is this machine's ceiling for the shape.
 *
 * --servers chips|relay|chips,relay: which servers the headline runs (both by default).
 *
 * --profile [DIR]: a CPU profile of each server (Chips and the relay) over each headline window,
 * its top frames and areas printed (the files kept in DIR, or a temporary directory): read side
 * by side, they show where Chips spends more.
 *
 * --quiet-wait S: before each load window, wait up to S seconds for the machine to be < 30 % busy.
 *
 * --warmup S (3): before each window, S seconds of its load that are not measured (a cold start
 * after the quiet wait is the growth table's "first post", not the steady state's delivery).
 *
 * The headline run (`--shape`, W×R×S = 10,000 sockets in 1,000 rooms by default) prints,
 * per server and offered rate: each POST's answer time and delivery p50/p99 per room class,
 * loss / reorder / duplicates / holes, server CPU per event, memory per socket, join (with
 * catch-up) times, the catch-up of a busy room from seq 0, what the server's event loop lost
 * (stalls over 10 ms, bench/lib/loop-hook.ts) and to how many major GCs, and how busy the
 * shared machine was (its CPU over the window and load average); then the issue's aims with verdicts (Chips'
 * p99 ÷ the relay's of the same run) and the highest offered rate each server held.
 *
 * The growth table (`--growth`, one socket per room) starts a fresh server per W and prints,
 * per W: memory per workspace while hot and once idle past CHIPS_WORKSPACE_IDLE (`--idle` s)
 * and per idle room, memory per joined room, the first request's p99 after the release beside
 * a warm request's, join p99, delivery p99 per class and CPU per event under `--growth-rate`,
 * and the idle and joined-room figures at the largest W against the smallest. A step that
 * fails (the machine cannot carry it) ends the table there, with the reason.
 */
import os from "node:os";
import { flags, machine, num, one } from "../lib/args";
import { startPg, type PgCluster } from "../lib/pg";
import fs from "node:fs";
import path from "node:path";
import { sleep, tmpDir } from "../lib/proc";
import { summarizeProfile } from "../lib/profile";
import { relayTenants, server } from "./servers";
import { table } from "../lib/table";
import { headlineAims, growthTrend, type Headline, type GrowthRow } from "./report";
import { classes, connecting } from "./shape";
import type { Assignment } from "./clients";
import { catchUps, connectClients, log, makeTenants, postEach, settled, type Tenant } from "./run";
import { stopClients, window } from "./window";

const f = flags();
const db = one(f, "db") ?? "postgres";
const [W, R, S] = (one(f, "shape") ?? "200x5x10").split("x").map(Number);
const rate = num(f, "rate", 1000);
const busyN = num(f, "busy", 20);
const busyRate = num(f, "busy-rate", 40);
const seconds = num(f, "seconds", 10);
const idleS = num(f, "idle", 5);
const procs = num(f, "client-procs", 4);
const growth = (one(f, "growth") ?? "100,200,400,800").split(",").map(Number);
const growthRooms = num(f, "growth-rooms", 5);
const growthRate = num(f, "growth-rate", 500);
/** Rates offered after the aim's, on the same connected clients: where the node stops keeping up. */
const ceiling = (one(f, "ceiling") ?? "").split(",").filter(Boolean).map(Number);
const quietWait = Number(one(f, "quiet-wait") ?? 0);
const prof = one(f, "profile");
/** `--servers chips` measures Chips alone (say, while profiling); the aims need both. */
const kinds = (one(f, "servers") ?? "chips,relay").split(",") as ("chips" | "relay")[];
const profileDir = prof === undefined ? undefined : prof === "true" ? tmpDir("chips-scale-prof-") : path.resolve(prof);
if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
const warmup = num(f, "warmup", 3);
const windowLoad = { busyN, busyRate, seconds, quietWait, warmup };
const kib = (mib: number) => (mib * 1024).toFixed(1);
const p = (h: { pct(p: number): number }, q: number) => h.pct(q).toFixed(1);

async function headline(pg: PgCluster | null) {
  console.log(
    `\n=== headline: ${W} workspaces × ${R} rooms × ${S} sockets = ${W * R * S} sockets in ${W * R} rooms; ${rate} events/s (${busyN} busy rooms at ${busyRate}/s), ${seconds} s`,
  );
  const rows: string[][] = [];
  const out: Headline = { rate, sockets: W * R * S, rooms: W * R, windows: [] };
  for (const kind of kinds) {
    const s = await server(kind, pg, `head_${W}`, idleS, profileDir);
    try {
      const tenants: Tenant[] =
        kind === "chips" ? await makeTenants(s.srv.url, s.srv.dataDir, W, R) : relayTenants(W, R);
      // A message in every room first: joins catch up on it, and every workspace has a writer and caches.
      if (kind === "chips")
        await postEach(
          s.srv.url,
          tenants.flatMap((t) => t.rooms.map((room) => ({ ws: t.ws, room }))),
          "hello",
        );
      const before = await settled(s.memFile);
      const sockets: Assignment[] = tenants.flatMap((t) =>
        t.rooms.flatMap((room) =>
          Array.from({ length: S }, () => ({ token: kind === "chips" ? t.ws.person_token : null, spaceId: room })),
        ),
      );
      log(`${kind}: connecting ${sockets.length} sockets in ${procs} processes`);
      const c = await connecting(s.memFile, () => connectClients(s.srv.url, sockets, procs));
      const after = await settled(s.memFile);
      log(`${kind}: ${c.connectS.toFixed(0)} s to connect; load`);
      const { busy } = classes(tenants, busyN, rate, busyRate);
      try {
        for (const r of [rate, ...ceiling]) {
          if (profileDir) await s.srv.profileStart();
          const w = await window(windowLoad, s, tenants, sockets, r, c.children);
          if (profileDir) {
            const file = await s.srv.profileStop(`${kind}-scale-${r}`);
            if (file) console.log(`\n${kind} server over the ${r}/s window: ${summarizeProfile(file, 30)}`);
          }
          const cu =
            kind === "chips" && r === rate
              ? await catchUps(
                  s.srv.url,
                  busy.slice(0, 10).map((b) => ({ token: b.ws.person_token, room: b.room })),
                )
              : null;
          out.windows.push({ kind, offered: r, load: w.load, d: w.d });
          rows.push([
            kind === "chips" ? "Chips" : "bare relay",
            String(r),
            `${w.load.ok}/${w.load.sent} (${w.load.rate.toFixed(0)}/s)${w.load.failed ? ` ${w.load.failed} failed: ${w.load.firstError}` : ""}`,
            `${p(w.load.answers, 50)} / ${p(w.load.answers, 99)}`,
            `${p(w.d.busy, 50)} / ${p(w.d.busy, 99)}`,
            `${p(w.d.quiet, 50)} / ${p(w.d.quiet, 99)}`,
            `${w.d.lost} / ${w.d.reorder} / ${w.d.dup} / ${w.d.breaks}`,
            w.cpuPerEvent.toFixed(3),
            `${kib((after.heap - before.heap) / sockets.length)} / ${kib((after.rss - before.rss) / sockets.length)}`,
            `${p(c.joins, 50)} / ${p(c.joins, 99)} (${c.connectS.toFixed(0)} s)`,
            cu ? `${p(cu, 50)} / ${p(cu, 99)}` : "–",
            `${w.loop.stallMs.toFixed(0)} (${w.loop.stalls}) / ${w.loop.major} / ${w.loop.peakRssMiB.toFixed(0)}`,
            w.machineNow,
          ]);
          log(`${kind} at ${r}/s: ${JSON.stringify(rows.at(-1))}`);
        }
      } finally {
        stopClients(c.children);
      }
    } finally {
      await s.stop();
    }
  }
  console.log(
    table(
      [
        "server",
        "offered/s",
        "events stored",
        "POST answer p50/p99 ms",
        "busy p50/p99 ms",
        "quiet p50/p99 ms",
        "lost/reorder/dup/holes",
        "CPU ms/event",
        "KiB/socket heap/RSS",
        "join p50/p99 ms",
        "busy room from 0 p50/p99 ms",
        "loop stalls ms (n) / major GCs / peak RSS MiB",
        "machine busy % / load",
      ],
      rows,
    ),
  );
  console.log("\n" + headlineAims(out));
}

async function growthTable(pg: PgCluster | null) {
  console.log(
    `\n=== growth: W workspaces × ${growthRooms} rooms, 1 socket a room, ${growthRate} events/s for ${seconds} s, idle after ${idleS} s`,
  );
  const rows: string[][] = [];
  const trend: GrowthRow[] = [];
  let stopped = "";
  for (const w of growth) {
    const s = await server("chips", pg, `grow_${w}`, idleS);
    const t0 = Date.now();
    try {
      const tenants = await makeTenants(s.srv.url, s.srv.dataDir, w, growthRooms);
      const m0 = await settled(s.memFile);
      const rooms = tenants.flatMap((t) => t.rooms.map((room) => ({ ws: t.ws, room })));
      await postEach(s.srv.url, rooms, "touch");
      const m1 = await settled(s.memFile);
      await sleep(idleS * 1500 + 1000); // past the quiet period and the sweep after it
      const m2 = await settled(s.memFile);
      const firsts = tenants.map((t) => ({ ws: t.ws, room: t.rooms[0] }));
      const first = await postEach(s.srv.url, firsts, "first after idle");
      const warm = await postEach(s.srv.url, firsts, "warm");
      await sleep(idleS * 1500 + 1000);
      const m3 = await settled(s.memFile);
      const sockets = rooms.map((r) => ({ token: r.ws.person_token, spaceId: r.room }));
      const c = await connecting(s.memFile, () => connectClients(s.srv.url, sockets, procs));
      const m4 = await settled(s.memFile);
      const x = await window(windowLoad, s, tenants, sockets, growthRate, c.children).finally(() =>
        stopClients(c.children),
      );
      const prev = trend.at(-1);
      trend.push({ w, idleMiB: m2.heap - m0.heap, roomKiB: ((m4.heap - m3.heap) * 1024) / rooms.length });
      rows.push([
        String(w),
        String(rooms.length),
        kib((m1.heap - m0.heap) / w),
        kib((m2.heap - m0.heap) / w),
        ((((m2.heap - m0.heap) * 2 ** 20) / rooms.length) | 0).toString(),
        prev ? kib((m2.heap - m0.heap - prev.idleMiB) / (w - prev.w)) : "–",
        kib((m4.heap - m3.heap) / rooms.length),
        kib((m4.rss - m3.rss) / rooms.length),
        `${p(first, 99)} / ${p(warm, 99)}`,
        p(c.joins, 99),
        `${p(x.d.busy, 99)} / ${p(x.d.quiet, 99)}`,
        x.cpuPerEvent.toFixed(3),
        `${x.d.lost}/${x.d.reorder}/${x.d.dup}`,
        x.machineNow,
        ((Date.now() - t0) / 1000).toFixed(0),
      ]);
      log(`growth ${w}: ${JSON.stringify(rows.at(-1))}`);
    } catch (e) {
      // A step the machine cannot carry ends the table there: say where and why, keep the rows.
      stopped = `stopped at W = ${w}: ${String(e).split("\n")[0]}`;
      log(stopped);
    } finally {
      await s.stop();
    }
    if (stopped) break;
  }
  console.log(
    table(
      [
        "W",
        "rooms",
        "KiB/ws hot",
        "KiB/ws idle",
        "B/room idle",
        "KiB/ws idle, marginal",
        "KiB/joined room heap",
        "RSS",
        "first / warm post p99 ms",
        "join p99 ms",
        "busy / quiet p99 ms",
        "CPU ms/event",
        "lost/reorder/dup",
        "machine busy % / load",
        "step s",
      ],
      rows,
    ),
  );
  console.log(growthTrend(trend) + (stopped ? `\n${stopped}` : ""));
}

async function main() {
  console.log(machine());
  console.log(
    `load average at start: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(", ")}`,
  );
  const pg = db === "postgres" ? await startPg() : null;
  if (pg) console.log(`PostgreSQL ${pg.version}`);
  try {
    if (!f.has("skip-headline")) await headline(pg);
    if (!f.has("skip-growth")) await growthTable(pg);
    console.log(
      `load average at end: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(", ")}`,
    );
  } finally {
    await pg?.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
