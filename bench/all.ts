/**
 * `npm run bench [-- --only ingest|realtime|room|connect|asks|otlp|review|soak|scale] [SUITE FLAGS…] [-- VERBATIM…]`:
 * each suite as its own process, one after another (they each start their own servers and
 * must not share the 2 cores). Never run in CI. `npm run bench -- --help` prints every suite's flags.
 *
 * Each suite gets every flag it knows (see SUITES) and none it does not, so
 * `--only realtime --warmup 1 --client-procs 1` reaches the realtime suite whole, and a flag
 * no suite knows is refused here. Whatever follows a bare `--` goes to the chosen suites
 * verbatim — e.g. the realtime suite's own `--only`: `npm run bench -- --only realtime -- --only catchup`.
 *
 * The suites live in bench/<suite>/ over the shared helpers in bench/lib/.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

interface Suite {
  script: string;
  /** Flags that take a value (optional ones too: the next token is theirs unless it is a flag). */
  values: string[];
  /** Flags that stand alone. */
  bools: string[];
}

const SUITES: Record<string, Suite> = {
  ingest: {
    script: "bench/ingest/main.ts",
    values: ["--db", "--seconds", "--scenario", "--profile", "--json", "--quiet-wait"],
    bools: [],
  },
  realtime: {
    script: "bench/realtime/main.ts",
    values: [
      "--db",
      "--seconds",
      "--warmup",
      "--client-procs",
      "--reps",
      "--scenario",
      "--quiet-wait",
      "--profile",
      "--sockets",
    ],
    bools: [],
  },
  room: {
    script: "bench/room/main.ts",
    values: ["--db", "--reps", "--events", "--older", "--seconds", "--quiet-wait", "--profile"],
    bools: ["--build", "--no-build", "--short-texts"],
  },
  connect: { script: "bench/connect/hook.ts", values: [], bools: [] },
  asks: { script: "bench/asks/main.ts", values: ["--rounds", "--think", "--quiet-wait"], bools: [] },
  otlp: {
    script: "bench/otlp/main.ts",
    values: ["--db", "--runs", "--calls", "--clients", "--quiet-wait"],
    bools: [],
  },
  soak: {
    script: "bench/soak/main.ts",
    values: ["--db", "--rate", "--seconds", "--warm", "--idle", "--grow", "--step", "--quiet-wait"],
    bools: [],
  },
  scale: {
    script: "bench/scale/main.ts",
    values: [
      "--db",
      "--shape",
      "--rate",
      "--busy",
      "--busy-rate",
      "--seconds",
      "--growth",
      "--growth-rooms",
      "--growth-rate",
      "--idle",
      "--client-procs",
      "--quiet-wait",
      "--ceiling",
      "--servers",
      "--profile",
    ],
    bools: ["--skip-growth", "--skip-headline"],
  },
  review: {
    script: "bench/review/main.ts",
    values: ["--db", "--runs", "--events", "--long-run", "--budget-minutes", "--reps"],
    bools: [],
  },
};

const fail = (msg: string): never => {
  console.error(msg);
  process.exit(2);
};

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const own = sep >= 0 ? argv.slice(0, sep) : argv;
const verbatim = sep >= 0 ? argv.slice(sep + 1) : [];

if (own.includes("--help") || own.includes("-h")) {
  const doc = (file: string) => fs.readFileSync(path.resolve(file), "utf8").split("*/")[0];
  console.log(doc(import.meta.filename));
  for (const [name, s] of Object.entries(SUITES)) console.log(`\n=== ${name} (${s.script})\n${doc(s.script)}`);
  process.exit(0);
}

let only = "all";
/** [flag, value?] pairs in the order given; a value is kept with its flag. */
const given: [string, string | undefined][] = [];
for (let i = 0; i < own.length; i++) {
  const [flag, inline] = own[i].split("=", 2);
  if (flag === "--only") {
    only = inline ?? own[++i] ?? fail("--only takes a suite name");
    continue;
  }
  const suites = Object.values(SUITES);
  const takesValue = suites.some((s) => s.values.includes(flag));
  if (!takesValue && !suites.some((s) => s.bools.includes(flag))) fail(`unknown flag ${own[i]} (try --help)`);
  const value =
    inline ?? (takesValue && own[i + 1] !== undefined && !own[i + 1].startsWith("--") ? own[++i] : undefined);
  given.push([flag, value]);
}

const pick = only === "all" ? Object.keys(SUITES) : [only];
for (const name of pick) if (!SUITES[name]) fail(`--only is one of ${Object.keys(SUITES).join(", ")}, or all`);

for (const name of pick) {
  const s = SUITES[name];
  const forwarded = given
    .filter(([flag]) => s.values.includes(flag) || s.bools.includes(flag))
    .flatMap(([flag, value]) => (value === undefined ? [flag] : [flag, value]));
  console.log(`\n=== bench: ${name}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.resolve(s.script), ...forwarded, ...verbatim], {
    stdio: "inherit",
  });
  if (r.status !== 0) {
    console.error(`=== bench: ${name} failed (exit ${r.status})`);
    process.exitCode = 1;
  }
}
