/**
 * The plans of a room's event queries (lib/server/realtime/frames.ts filters by space_id
 * alone) beside the same query with workspace_id, on a store of two workspaces × N events.
 * Evidence for docs/perf-realtime.md; changes nothing.
 *
 *   node --import tsx bench/realtime/explain.ts [--db pglite|postgres|both] [--events 10000]
 */
import path from "node:path";
import { adminToken, createWorkspace, keepAlive, seedMessages, type Workspace } from "../lib/api";
import { flags, num, one } from "../lib/args";
import { parseDbFlag, startPg, type PgCluster } from "../lib/pg";
import { rmrf, spawnNode } from "../lib/proc";

const queries = (ws: Workspace, head: number) => [
  [
    "history (frames.ts: space only)",
    `select body, prev_seq from events where space_id = '${ws.space_id}' and seq < ${head} order by seq desc limit 1000`,
  ],
  [
    "catch-up (frames.ts: space only)",
    `select body, prev_seq from events where space_id = '${ws.space_id}' and seq > ${head - 1000} order by seq asc limit 1001`,
  ],
  [
    "history with workspace_id",
    `select body, prev_seq from events where workspace_id = '${ws.workspace_id}' and space_id = '${ws.space_id}' and seq < ${head} order by seq desc limit 1000`,
  ],
];

async function run(db: "pglite" | "postgres", pg: PgCluster | null, n: number) {
  const url = pg ? await pg.createDb("explain") : undefined;
  const srv = await spawnNode({ script: "server.ts", env: url ? { DATABASE_URL: url } : {} });
  const agent = keepAlive(8);
  let ws!: Workspace;
  let head = 0;
  try {
    for (let k = 0; k < 2; k++) {
      ws = await createWorkspace(agent, srv.url, adminToken(srv.dataDir));
      head = await seedMessages(agent, srv.url, ws, n);
    }
  } finally {
    agent.destroy();
    await srv.stop(); // PGlite: one opener at a time
  }
  let exec: (q: string) => Promise<string[]>;
  let close: () => Promise<void>;
  if (url) {
    const { default: postgres } = await import("postgres");
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql`analyze`;
    exec = async (q) => (await sql.unsafe(`explain analyze ${q}`)).map((r) => String(r["QUERY PLAN"]));
    close = () => sql.end();
  } else {
    const { PGlite } = await import("@electric-sql/pglite");
    const lite = await PGlite.create({ dataDir: path.join(srv.dataDir, "pgdata") });
    await lite.query("analyze");
    exec = async (q) =>
      (await lite.query<Record<string, string>>(`explain analyze ${q}`)).rows.map((r) => r["QUERY PLAN"]);
    close = () => lite.close();
  }
  console.log(`\n## ${db}: 2 workspaces × ${n} events`);
  for (const [what, q] of queries(ws, head)) {
    console.log(`\n${what}:\n  ${q}`);
    for (const line of await exec(q)) console.log(`    ${line}`);
  }
  await close();
  rmrf(srv.dataDir);
}

const f = flags();
const dbs = parseDbFlag(one(f, "db"));
const pg = dbs.includes("postgres") ? await startPg() : null;
try {
  for (const db of dbs) await run(db, db === "postgres" ? pg : null, num(f, "events", 10_000));
} finally {
  await pg?.stop();
}
