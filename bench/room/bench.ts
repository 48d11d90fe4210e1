import net from "node:net";
import { adminToken, createWorkspace, keepAlive, request, type Workspace } from "../lib/api";
import { median } from "../lib/hist";
import { startPg, type DbKind } from "../lib/pg";
import { summarizeProfile } from "../lib/profile";
import { rmrf, spawnNode, waitQuiet } from "../lib/proc";
import { aimsTable, ms, table, type Aim } from "../lib/table";
import { launch, visit, type Visit } from "./browser";
import { ensureBuild } from "./build";
import { markdownCost } from "./markdown-cost";
import { seedRoom, type RoomKind } from "./seed";

export interface RoomOpts {
  dbs: DbKind[];
  reps: number;
  events: number;
  older: number;
  /** Seed two-word messages only (an A/B against the mixed Markdown texts). */
  shortTexts?: boolean;
  /** Bound on each visit's load wait and on its scroll-back. */
  timeoutS: number;
  /** Before each visit, wait up to this many seconds for the machine to be quiet. */
  quietWait: number;
  build?: { force?: boolean; skip?: boolean };
  profileDir?: string;
}

export interface RoomDbResult {
  db: DbKind;
  warmup: Visit;
  visits: Visit[];
  /** The same room with its runs' tool calls mixed in ([TOOL5]), visited in the same rounds. */
  calls: { events: number; warmup: Visit; visits: Visit[] };
  aims: Aim[];
}

/** Tool calls each run of the tool-call room makes: 20 runs × 75 calls = 3,000 more events. */
const CALLS_PER_RUN = 75;

const log = (s: string) => process.stderr.write(`[room] ${s}\n`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const row = (name: string, v: Visit) => [
  name,
  ms(v.ttfb),
  ms(v.fcp),
  ms(v.newestInDom),
  ms(v.newestVisible),
  ms(v.newestPainted),
  ms(v.live),
  ms(v.loadLongest),
  `${v.olderLoaded} in ${v.historyPages} pages`,
  v.scrolledSeqs,
  ms(v.scrollMs),
  ms(v.scrollLongest),
  `${v.scrollOver100}/${v.scrollLongTasks}`,
  `${ms(v.prependLongest)} (${v.prependOver100})`,
  `${ms(v.otherLongest)} (${v.otherOver100})`,
];

function medianVisit(vs: Visit[]): Visit {
  const m = (f: (v: Visit) => number) => median(vs.map(f));
  return {
    ttfb: m((v) => v.ttfb),
    fcp: m((v) => v.fcp),
    domContentLoaded: m((v) => v.domContentLoaded),
    newestInDom: m((v) => v.newestInDom),
    newestVisible: m((v) => v.newestVisible),
    newestPainted: m((v) => v.newestPainted),
    live: m((v) => v.live),
    redirects: vs[0].redirects,
    loadLongest: m((v) => v.loadLongest),
    olderLoaded: m((v) => v.olderLoaded),
    historyPages: m((v) => v.historyPages),
    scrolledSeqs: m((v) => v.scrolledSeqs),
    scrollMs: m((v) => v.scrollMs),
    scrollLongest: m((v) => v.scrollLongest),
    scrollOver100: m((v) => v.scrollOver100),
    scrollLongTasks: m((v) => v.scrollLongTasks),
    prependLongest: m((v) => v.prependLongest),
    prependOver100: m((v) => v.prependOver100),
    otherLongest: m((v) => v.otherLongest),
    otherOver100: m((v) => v.otherOver100),
    reachedTarget: vs.every((v) => v.reachedTarget),
  };
}

const HEAD = [
  "visit",
  "TTFB",
  "FCP",
  "newest in DOM",
  "newest visible",
  "newest painted",
  "socket live",
  "longest task (load)",
  "older loaded",
  "older items seen",
  "scroll time",
  "longest task (scroll)",
  ">100 ms / long tasks",
  "after a history page: longest (>100)",
  "plain scrolling: longest (>100)",
];

export function printRoom(r: RoomDbResult, o: RoomOpts) {
  const med = medianVisit(r.visits);
  console.log(
    `\n## Room in the browser, ${r.db}: ${o.events} events${o.shortTexts ? " (two-word messages)" : ""}, scroll back through ${o.older} older (ms from navigation start)`,
  );
  console.log(
    table(HEAD, [
      row("warm-up (not counted)", r.warmup),
      ...r.visits.map((v, i) => row(`visit ${i + 1}`, v)),
      row(`median of ${r.visits.length}`, med),
    ]),
  );
  console.log(
    `\n## The same room with its runs' tool calls mixed in, ${r.db}: ${r.calls.events} events (${r.calls.events - o.events} of them tool calls' starts and ends), visited in the same rounds`,
  );
  console.log(
    table(HEAD, [
      row("warm-up (not counted)", r.calls.warmup),
      ...r.calls.visits.map((v, i) => row(`visit ${i + 1}`, v)),
      row(`median of ${r.calls.visits.length}`, medianVisit(r.calls.visits)),
    ]),
  );
  console.log(`\n## Aims, room, ${r.db}`);
  console.log(aimsTable(r.aims));
}

function aimsOf(vs: Visit[], withCalls: Visit[], o: RoomOpts): Aim[] {
  const med = medianVisit(vs);
  const ratio = medianVisit(withCalls).newestPainted / med.newestPainted;
  const worst = Math.max(...vs.map((v) => v.scrollLongest));
  return [
    {
      what: `newest events painted (room of ${o.events})`,
      aim: "≤ 1,500 ms from navigation",
      got: `${ms(med.newestPainted)} ms (median)`,
      met: med.newestPainted <= 1500,
    },
    {
      what: `scroll back through ${o.older} older events`,
      aim: "no long task > 100 ms",
      got: `longest ${ms(med.scrollLongest)} ms (median), ${ms(worst)} worst; ${vs.filter((v) => v.scrollOver100 > 0).length}/${vs.length} visits had one`,
      met: med.scrollLongest <= 100 && med.reachedTarget,
    },
    {
      what: `tool calls mixed in (${CALLS_PER_RUN} a run) against the same room without them`,
      aim: "newest painted ≤ 1.10× (≤ +10 %)",
      got: `${ratio.toFixed(2)}× (medians, same rounds)`,
      met: ratio <= 1.1,
    },
  ];
}

async function oneDb(db: DbKind, databaseUrl: string | undefined, o: RoomOpts): Promise<RoomDbResult> {
  const port = await freePort();
  const env: Record<string, string> = {
    CHIPS_WEB: "1",
    PORT: String(port),
    CHIPS_PUBLIC_URL: `http://localhost:${port}`,
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const srv = await spawnNode({ script: "server.ts", env, profileDir: o.profileDir });
  const agent = keepAlive(16);
  const browser = await launch();
  try {
    const admin = adminToken(srv.dataDir);
    const room = async (kind: RoomKind) => {
      const ws: Workspace = await createWorkspace(agent, srv.url, admin);
      log(`${db}: seeding ${o.events} events${kind.callsPerRun ? ` and ${kind.callsPerRun} tool calls a run` : ""}`);
      const seeded = await seedRoom(agent, srv.url, ws, o.events, kind);
      const page = await request(
        agent,
        `${srv.url}/api/v1/workspaces/${ws.workspace_id}/events?after=${seeded.newestSeq - 100}&space=${ws.space_id}&limit=1000`,
        "GET",
        ws.person_token,
      );
      const oldest = (JSON.parse(page.body) as { events: { seq: number }[] }).events[0].seq;
      const link = async () => {
        const r = await request(agent, `${srv.url}/api/v1/admin/login-links`, "POST", admin, {
          workspace_id: ws.workspace_id,
          space_id: ws.space_id,
        });
        return (JSON.parse(r.body) as { url: string }).url;
      };
      log(`${db}: ${seeded.total} events, ${seeded.runs} runs, newest seq ${seeded.newestSeq}; warm-up visit`);
      const go = async (url: string) => visit(browser, url, seeded.newestSeq, oldest, o.older, o.timeoutS * 1000);
      return { ws, seeded, oldest, link, go, warmup: await go(ws.room_url) };
    };
    const plain = await room({ short: o.shortTexts });
    const tooled = await room({ short: o.shortTexts, callsPerRun: CALLS_PER_RUN });
    const { seeded, link, oldest: firstPageOldest } = plain;
    const warmup = plain.warmup;
    const visits: Visit[] = [];
    const withCalls: Visit[] = [];
    for (let i = 0; i < o.reps; i++) {
      // The two rooms alternate which goes first, so a drift of the machine falls on both alike.
      for (const r of i % 2 ? [tooled, plain] : [plain, tooled]) {
        const busy = await waitQuiet(o.quietWait);
        log(
          `${db}: visit ${i + 1}/${o.reps}${r === tooled ? " (tool calls)" : ""} (machine ${busy.toFixed(0)}% busy before)`,
        );
        (r === tooled ? withCalls : visits).push(await r.go(await r.link()));
      }
    }
    if (o.profileDir) {
      // One more visit, traced and with the server profiled: its figures are not counted.
      log(`${db}: traced visit (not counted)`);
      await srv.profileStart();
      const t = await visit(browser, await link(), seeded.newestSeq, firstPageOldest, o.older, o.timeoutS * 1000, true);
      const f = await srv.profileStop(`chips-room-${db}`);
      console.log(
        `\n${db} room, traced visit (not counted): newest painted ${ms(t.newestPainted)} ms, scroll longest task ${ms(t.scrollLongest)} ms`,
      );
      console.log(`load phase: ${t.traces?.load}\nscroll-back phase: ${t.traces?.scroll}`);
      if (f) console.log(`Chips server during the traced visit: ${summarizeProfile(f)}`);
      const mc = markdownCost();
      console.log(
        `Markdown of one timeline item (react-markdown + gfm + sanitize, rendered in Node): ${mc.perItem.toFixed(2)} ms; the same text in a plain div: ${mc.plain.toFixed(3)} ms`,
      );
    }
    return {
      db,
      warmup,
      visits,
      calls: { events: tooled.seeded.total, warmup: tooled.warmup, visits: withCalls },
      aims: aimsOf(visits, withCalls, o),
    };
  } finally {
    await browser.close();
    agent.destroy();
    await srv.stop();
    rmrf(srv.dataDir);
  }
}

/** The room bench: a production server per database kind, a seeded room, Chromium visits. */
export async function runRoomBench(o: RoomOpts): Promise<RoomDbResult[]> {
  console.log(ensureBuild(o.build));
  const pg = o.dbs.includes("postgres") ? await startPg() : null;
  const out: RoomDbResult[] = [];
  try {
    for (const db of o.dbs) {
      const r = await oneDb(db, db === "postgres" ? await pg!.createDb("room") : undefined, o);
      printRoom(r, o);
      out.push(r);
    }
  } finally {
    await pg?.stop();
  }
  return out;
}
