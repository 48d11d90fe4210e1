/**
 * The scale bench's verdicts: the aims for the headline shape against the bare relay
 * of the same run, the highest offered rate each server held, and how the growth table's
 * per-workspace and per-room figures move as W doubles.
 */
import { aimsTable } from "../lib/table";
import type { deliveries, LoadResult } from "./run";

interface Window {
  kind: "chips" | "relay";
  offered: number;
  load: LoadResult;
  d: ReturnType<typeof deliveries>;
}

export interface Headline {
  rate: number;
  sockets: number;
  rooms: number;
  windows: Window[];
}

/** Delivery p99 within this, every event stored and delivered once in order: the rate is held. */
const HELD_P99_MS = 1000;

const clean = (w: Window) => w.d.lost + w.d.reorder + w.d.dup + w.d.breaks === 0;
const held = (w: Window) =>
  w.load.failed === 0 &&
  clean(w) &&
  w.load.rate >= 0.95 * w.offered &&
  Math.max(w.d.busy.pct(99), w.d.quiet.pct(99)) <= HELD_P99_MS;

export function headlineAims(h: Headline): string {
  const at = (kind: Window["kind"]) => h.windows.find((w) => w.kind === kind && w.offered === h.rate);
  const chips = at("chips");
  const relay = at("relay");
  if (!chips || !relay) return "no aim window for both servers: no verdicts";
  const ratio = (c: "busy" | "quiet") => chips.d[c].pct(99) / relay.d[c].pct(99);
  const best = (kind: Window["kind"]) =>
    Math.max(0, ...h.windows.filter((w) => w.kind === kind && held(w)).map((w) => w.offered));
  const bestChips = best("chips");
  const bestRelay = best("relay");
  const lines = [
    aimsTable([
      {
        what: `shape: sockets, rooms; events/s stored`,
        aim: "10,000 sockets in 1,000 rooms; ≥ 1,000/s",
        got: `${h.sockets} in ${h.rooms}; ${chips.load.ok}/${chips.load.sent} stored at ${h.rate}/s offered`,
        // Offered, and every event stored: the rate measured over the window reads a hair under
        // what was offered (the last POST's answer ends the window), 999.6 for 1,000.
        met: h.sockets >= 10_000 && h.rooms >= 1_000 && h.rate >= 1_000 && chips.load.ok === chips.load.sent,
      },
      {
        what: "busy rooms' delivery p99, Chips ÷ relay",
        aim: "≤ 2×",
        got: `${ratio("busy").toFixed(2)}× (${chips.d.busy.pct(99).toFixed(0)} / ${relay.d.busy.pct(99).toFixed(0)} ms)`,
        met: ratio("busy") <= 2,
      },
      {
        what: "quiet rooms' delivery p99, Chips ÷ relay",
        aim: "≤ 2×",
        got: `${ratio("quiet").toFixed(2)}× (${chips.d.quiet.pct(99).toFixed(0)} / ${relay.d.quiet.pct(99).toFixed(0)} ms)`,
        met: ratio("quiet") <= 2,
      },
      {
        what: "Chips: lost / reorder / dup / holes",
        aim: "0 / 0 / 0 / 0",
        got: `${chips.d.lost} / ${chips.d.reorder} / ${chips.d.dup} / ${chips.d.breaks}`,
        met: clean(chips),
      },
    ]),
    `highest offered rate held (all stored, delivered once in order, p99 ≤ ${HELD_P99_MS} ms): ` +
      `Chips ${bestChips || "none"}/s, relay ${bestRelay || "none"}/s` +
      (bestChips && bestRelay ? ` (${(bestChips / bestRelay).toFixed(2)}× the relay)` : ""),
  ];
  return lines.join("\n");
}

export interface GrowthRow {
  w: number;
  /** MiB of live heap the node still holds for all W workspaces once they are idle. */
  idleMiB: number;
  /** KiB of live heap per room with one socket joined. */
  roomKiB: number;
}

/**
 * Whether the cost per workspace stays flat as W doubles: the idle heap over W, and the heap
 * per joined room, at the largest W against the smallest. Linear growth keeps both near 1×.
 */
export function growthTrend(rows: GrowthRow[]): string {
  if (rows.length < 2) return "growth: fewer than two steps, no trend";
  const [a, b] = [rows[0], rows.at(-1)!];
  const perWs = (r: GrowthRow) => (r.idleMiB * 1024) / r.w;
  const times = (x: number, y: number) => (x > 0 && y > 0 ? `${(y / x).toFixed(2)}×` : "–");
  return (
    `growth W ${a.w} → ${b.w}: idle KiB/workspace ${perWs(a).toFixed(1)} → ${perWs(b).toFixed(1)} ` +
    `(${times(perWs(a), perWs(b))}); KiB/joined room ${a.roomKiB.toFixed(1)} → ${b.roomKiB.toFixed(1)} ` +
    `(${times(a.roomKiB, b.roomKiB)}); ≤ 1× per unit is linear or better`
  );
}
