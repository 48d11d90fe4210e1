// `npm run seed -- --runs N --events M [--seed S] [--workspace WS] [--days D]`: a realistic
// history (lib/dev/history.ts) written through the ingest writer into a workspace — a new
// one unless --workspace names one — on the database the server uses (DATABASE_URL, else the
// embedded PGlite in CHIPS_DATA_DIR or ./.chips; stop `npm start` first on PGlite: one
// process holds it). Prints the workspace, what was stored, and how long it took.
import { parseArgs } from "node:util";
import { openDatabase } from "../db/client";
import { loadConfig } from "../lib/server/env";
import { createServices } from "../lib/server/services";
import { createWorkspaceBundle } from "../lib/server/workspaces";
import { bootstrap } from "../lib/server/bootstrap";
import { seedHistory } from "../lib/dev/history";
import { seedInto } from "../lib/dev/seed";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
    events: { type: "string", default: "6000" },
    seed: { type: "string", default: "1" },
    days: { type: "string", default: "60" },
    workspace: { type: "string" },
    parallel: { type: "string", default: "8" },
  },
});
const int = (k: keyof typeof values) => {
  const n = Number(values[k]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${k} must be a whole number`);
  return n;
};

const config = loadConfig();
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  poolSize: config.pgPoolSize,
});
try {
  const boot = await bootstrap(database.db, config.dataDir);
  const svc = createServices(config, database);
  const ws =
    values.workspace ??
    (await createWorkspaceBundle(database.db, { workspace: `Seeded history (seed ${values.seed})` })).workspace_id;
  const t0 = performance.now();
  const history = seedHistory({ runs: int("runs"), events: int("events"), seed: int("seed"), days: int("days") });
  const events = history.facts.reduce((n, f) => n + f.events, 0);
  console.log(`generated ${history.facts.length} runs, ${events} events in ${Math.round(performance.now() - t0)} ms`);
  const t1 = performance.now();
  let shown = 0;
  const r = await seedInto(svc, ws, history.doc, {
    parallel: int("parallel"),
    onProgress: (n) => {
      if (n - shown >= 1000) console.log(`  ${(shown = n)} runs…`);
    },
  });
  const t2 = performance.now();
  await svc.review.settle(ws);
  svc.review.close();
  console.log(
    `stored ${r.stored} events (${r.replayed} already there) of ${r.runs.length} runs in ${Math.round(t2 - t1)} ms; indexed in ${Math.round(performance.now() - t2)} ms`,
  );
  console.log(`workspace ${ws}${values.workspace ? "" : ` (default workspace: ${boot.defaults.workspace_id})`}`);
} finally {
  await database.close();
}
