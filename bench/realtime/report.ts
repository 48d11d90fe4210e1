import type { CatchUpResult } from "./catchup";
import type { FanoutResult } from "./fanout";
import type { DbKind } from "../lib/pg";
import { aimsTable, ms, pct, ratio, table, type Aim } from "../lib/table";

export interface DbResult {
  db: DbKind;
  rows: { chips: FanoutResult; base: FanoutResult }[];
  catchUp: CatchUpResult | null;
  baseCatchUp: { historyAll: number; historyPage: number } | null;
  aims: Aim[];
}

export function aimsOf(rows: DbResult["rows"], c: CatchUpResult | null): Aim[] {
  const aims: Aim[] = [];
  const first = rows.find((r) => r.chips.clients === 50 && r.chips.rate === 1000);
  if (first) {
    aims.push({
      what: "50 × 1,000/s p99",
      aim: "≤ 30 ms",
      got: `${ms(first.chips.latency.pct(99))} ms`,
      met: first.chips.latency.pct(99) <= 30,
    });
    const rp = first.chips.latency.pct(50) / first.base.latency.pct(50);
    aims.push({
      what: "50 × 1,000/s p50 vs baseline",
      aim: "≤ 2×",
      got: ratio(first.chips.latency.pct(50), first.base.latency.pct(50)),
      met: rp <= 2,
    });
  }
  if (!rows.length) return c ? [catchUpAim(c)] : [];
  const ooo = rows.reduce((a, r) => a + r.chips.outOfOrder, 0);
  aims.push({ what: "out-of-order arrivals (Chips, all runs)", aim: "0", got: String(ooo), met: ooo === 0 });
  const lost = rows.reduce((a, r) => a + r.chips.missing + r.chips.duplicates, 0);
  aims.push({ what: "missing + duplicate deliveries (Chips)", aim: "0", got: String(lost), met: lost === 0 });
  if (c) aims.push(catchUpAim(c));
  return aims;
}

const catchUpAim = (c: CatchUpResult): Aim => ({
  what: "catch-up of 10,000 missed events (join → all in hand)",
  aim: "≤ 300 ms",
  got: `${ms(c.joinAll)} ms`,
  met: c.joinAll <= 300,
});

/** The histogram's last bucket holds everything past 60 s. */
const lat = (v: number) => (v >= 60_000 ? `≥${ms(v)}` : ms(v));

const HEAD = [
  "scenario",
  "p50",
  "p99",
  "max",
  "p50 ×base",
  "p99 ×base",
  "delivered",
  "out-of-order",
  "missing",
  "dup",
  "prev_seq breaks",
  "poster",
  "POST p50/p99",
  "stored/s",
  "srv CPU ms/event",
  "CPU srv/clients/poster",
  "CPU others",
];

const FOOTNOTE = [
  "latency: scheduled send time (in the event's text, monotonic clock) → the client's `events` handler, every client, measured window only.",
  "out-of-order: seq not above the last seen by that client; prev_seq breaks: prev_seq ≠ last seen (RoomFeed would rejoin); missing/dup: per client.",
  "poster: achieved rate; 'late' = POSTs that left > 5 ms after their slot (the poster fell behind); POST p50/p99 from the scheduled time.",
  "CPU: % of one core over the posting window (2 cores = 200%); 'others' = the machine's busy time not spent by the server, clients or poster.",
  "stored/s: events stored ÷ (first POST → last answer): below the offered rate when the server falls behind.",
  "srv CPU ms/event: server process CPU time over the window ÷ events stored — what one single-event POST + fan-out costs the server.",
].join("\n");

export function printDb(r: DbResult) {
  const rows: (string | number)[][] = [];
  for (const { chips, base } of r.rows) {
    for (const [who, x] of [
      ["Chips", chips],
      ["baseline", base],
    ] as const) {
      const q = who === "Chips";
      rows.push([
        `${x.label} ${who}`,
        lat(x.latency.pct(50)),
        lat(x.latency.pct(99)),
        ms(x.latency.max),
        q ? ratio(x.latency.pct(50), base.latency.pct(50)) : "1×",
        q ? ratio(x.latency.pct(99), base.latency.pct(99)) : "1×",
        `${x.delivered}/${x.expected}`,
        x.outOfOrder,
        x.missing,
        x.duplicates,
        q ? x.prevBreaks : "–",
        `${x.post.rate.toFixed(0)}/s ${x.post.late ? `(${x.post.late} late, max ${ms(x.post.lagMax)})` : "on time"}${x.post.failed ? `, ${x.post.failed} failed` : ""}${x.post.retried ? `, ${x.post.retried} retried after a reset` : ""}`,
        `${ms(x.post.post.pct(50))}/${ms(x.post.post.pct(99))}`,
        `${x.storedRate.toFixed(0)}/s`,
        ms(x.serverMsPerEvent),
        `${pct(x.cpu.server)} / ${pct(x.cpu.clients)} / ${pct(x.cpu.poster)}`,
        `${pct(x.cpu.others)} (load ${x.cpu.load1.toFixed(1)})`,
      ]);
    }
  }
  if (rows.length) {
    console.log(`\n## Realtime fan-out, ${r.db} (POST → arrival at each client, ms)`);
    console.log(table(HEAD, rows));
    console.log(FOOTNOTE);
    for (const { chips, base } of r.rows)
      for (const x of [chips, base])
        console.log(
          `other processes during "${x.label} ${x === chips ? "Chips" : "baseline"}": ${
            x.otherProcs
              .slice(0, 6)
              .map((p) => `${p.comm} ${pct(p.pct)}`)
              .join(", ") || "none"
          }`,
        );
  }
  const c = r.catchUp;
  const b = r.baseCatchUp;
  if (c && b) {
    console.log(`\n## Catch-up, ${r.db}: a room of 10,000 events (median of ${c.reps}, ms)`);
    console.log(
      table(
        ["path", "Chips", "baseline", "ratio"],
        [
          ["join from 0 → snapshot arrived (runs + newest 1,000)", ms(c.snapshot), "–", "–"],
          [
            "join from 0 → all 10,000 in hand (snapshot + 9 history pages)",
            ms(c.joinAll),
            ms(b.historyAll),
            ratio(c.joinAll, b.historyAll),
          ],
          [
            "history only: 10 pages of 1,000 on a joined socket",
            ms(c.historyAll),
            ms(b.historyAll),
            ratio(c.historyAll, b.historyAll),
          ],
          ["one history page of 1,000", ms(c.historyPage), ms(b.historyPage), ratio(c.historyPage, b.historyPage)],
          ["HTTP GET events?after= × 10 pages of 1,000", ms(c.httpAll), "–", "–"],
          ["join 1,000 behind → 1,000 events + ack", ms(c.join1000), "–", "–"],
        ],
      ),
    );
    console.log(
      `snapshot ≈ ${(c.snapshotBytes / 1024).toFixed(0)} KiB of JSON; baseline column: its history pages of 1,000 (no snapshot, no runs)`,
    );
  }
  console.log(`\n## Aims, ${r.db}`);
  console.log(aimsTable(r.aims));
}
