/**
 * `npm run bench [-- --only ingest|realtime|room|connect|review] [--db pglite|postgres|both] [--seconds N]`:
 * each suite as its own process, one after another (they each start their own servers and
 * must not share the 2 cores). Never run in CI.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const SUITES = {
  ingest: "bench/run.ts",
  realtime: "bench/realtime/main.ts",
  room: "bench/room/main.ts",
  connect: "bench/connect/hook.ts",
  review: "bench/review/main.ts",
} as const;

const args = process.argv.slice(2);
const at = args.indexOf("--only");
const only = at >= 0 ? args[at + 1] : "all";
const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
const pick = only === "all" ? (Object.keys(SUITES) as (keyof typeof SUITES)[]) : [only as keyof typeof SUITES];
for (const name of pick) {
  if (!SUITES[name]) {
    console.error(`--only is one of ${Object.keys(SUITES).join(", ")}, or all`);
    process.exit(2);
  }
  console.log(`\n=== bench: ${name}`);
  // Flags taking a value that every suite (or only the review suite) reads; the ingest suite gets them all.
  const known =
    name === "review"
      ? ["--db", "--runs", "--events", "--long-run", "--budget-minutes", "--reps"]
      : ["--db", "--seconds"];
  const forwarded =
    name === "ingest" ? rest : rest.filter((a, i) => known.includes(a) || known.includes(rest[i - 1] ?? ""));
  const r = spawnSync(process.execPath, ["--import", "tsx", path.resolve(SUITES[name]), ...forwarded], {
    stdio: "inherit",
  });
  if (r.status !== 0) {
    console.error(`=== bench: ${name} failed (exit ${r.status})`);
    process.exitCode = 1;
  }
}
