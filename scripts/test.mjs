#!/usr/bin/env node
// `npm test`: run the one vitest suite twice —
//   pass 1 "pglite":   CHIPS_TEST_DB=pglite, no DATABASE_URL
//   pass 2 "postgres": CHIPS_TEST_DB=postgres, CHIPS_TEST_PG_URL=<throwaway cluster>
// then print a combined summary. The last line of output is exactly
// `N passed, N failed` (plus `, N skipped` when something was skipped).
//
// After each pass's vitest run, the Playwright e2e suite (e2e/) runs whole against the
// production server on that pass's database; its counts are part of the pass and of the
// totals. A production build is made first when missing or older than the sources.
// CHIPS_E2E=0 skips e2e.
//
// Extra args (`npm test -- <args>`) go to both vitest runs (not to Playwright).
// CHIPS_TEST_ONLY=pglite|postgres runs one pass only.
// CHIPS_REQUIRE_PG=1 makes missing PostgreSQL binaries an error instead of a skip.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findPgBin, startCluster } from "./pg-cluster.mjs";
import { firstLine, runPlaywright, summarizeE2E } from "./e2e.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VITEST = path.join(ROOT, "node_modules", ".bin", "vitest");
const extraArgs = process.argv.slice(2);
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;

const ALL_PASSES = ["pglite", "postgres"];
const only = (process.env.CHIPS_TEST_ONLY ?? "").trim();
if (only && !ALL_PASSES.includes(only)) {
  console.error(`CHIPS_TEST_ONLY must be one of ${ALL_PASSES.join("|")} (got "${only}")`);
  process.exit(2);
}
const passes = only ? [only] : ALL_PASSES;

/**
 * End-to-end (Playwright) tests for a pass, after its vitest run: scripts/e2e.mjs.
 * `clusterUrl` is the pass's PostgreSQL (postgres pass only). Never reports success for
 * tests it did not run.
 */
async function runE2E(pass, clusterUrl) {
  try {
    const jsonFile = path.join(tmp, `${pass}-e2e.json`);
    return await runPlaywright(pass, { clusterUrl, jsonFile, env: baseEnv(), spawn: spawnGroup });
  } catch (err) {
    console.error(`\n!!! ${pass}: e2e could not run: ${err.message}`);
    return { status: "error", ms: 0, note: err.message.split("\n")[0] };
  }
}

let currentChild = null;
let tmp = null;

// Registered before pg-cluster's own handlers, so they run first: kill the
// vitest process group and drop our temp dir, then exit — the 'exit' handler in
// pg-cluster.mjs then stops any running cluster.
for (const [sig, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
]) {
  process.on(sig, () => {
    console.error(`\n!!! ${sig} received: aborting test run`);
    if (currentChild?.pid) {
      try {
        process.kill(-currentChild.pid, currentChild.killSignal ?? "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    process.exit(code);
  });
}

function runVitest(pass, env, jsonFile) {
  const args = ["run", "--reporter=default", "--reporter=json", `--outputFile=${jsonFile}`, ...extraArgs];
  console.log(`\n=== ${pass}: vitest ${args.join(" ")}`);
  return new Promise((resolve) => {
    // Own process group, so a signal to us can take down vitest and its fork workers.
    const child = spawn(VITEST, args, {
      cwd: ROOT,
      env,
      stdio: ["ignore", "inherit", "inherit"],
      detached: true,
    });
    currentChild = child;
    child.on("error", (err) => {
      currentChild = null;
      console.error(`${pass}: could not start vitest: ${err.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      currentChild = null;
      resolve(signal ? `signal ${signal}` : code);
    });
  });
}

/** Run a command in its own process group (so an abort can stop it whole); resolves its exit. */
function spawnGroup(cmd, args, env, { killSignal = "SIGINT" } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ["ignore", "inherit", "inherit"], detached: true });
    child.killSignal = killSignal; // Playwright stops its web server on SIGINT
    currentChild = child;
    child.on("error", (err) => {
      currentChild = null;
      console.error(`could not start ${path.basename(cmd)}: ${err.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      currentChild = null;
      resolve(signal ? `signal ${signal}` : code);
    });
  });
}

/**
 * Each failed test, and each file that failed outside its tests (a hook, an import), as
 * "file › test: first line": the summary names them, so the tail of a CI log says what failed.
 */
function failuresOf(r) {
  const out = [];
  for (const f of r.testResults ?? []) {
    const file = path.relative(ROOT, f.name ?? "");
    const failed = (f.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failed) out.push(`${file} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
    if (f.status === "failed" && !failed.length) out.push(`${file}: ${firstLine(f.message)}`);
  }
  return out;
}

function readReport(jsonFile) {
  try {
    const r = JSON.parse(fs.readFileSync(jsonFile, "utf8"));
    return {
      passed: r.numPassedTests ?? 0,
      failed: r.numFailedTests ?? 0,
      skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
      total: r.numTotalTests ?? 0,
      // Files, not vitest's numFailedTestSuites: that counts each failed describe block too.
      failedFiles: (r.testResults ?? []).filter((f) => f.status === "failed").length,
      failures: failuresOf(r),
    };
  } catch (err) {
    return { error: `JSON report ${jsonFile} missing or unreadable (${err.code ?? err.message})` };
  }
}

function baseEnv() {
  const env = { ...process.env };
  delete env.DATABASE_URL; // the tests choose their own databases
  delete env.CHIPS_TEST_PG_URL;
  delete env.CHIPS_TEST_DB;
  return env;
}

// Fail fast (before spending time on pass 1) when Postgres is required but absent.
if (passes.includes("postgres") && !findPgBin() && process.env.CHIPS_REQUIRE_PG === "1") {
  console.error(
    "!!! FAILED: PostgreSQL binaries are missing (looked in $CHIPS_PG_BIN and " +
      "/usr/lib/postgresql/*/bin) and CHIPS_REQUIRE_PG=1 requires the Postgres pass.",
  );
  process.exit(1);
}

tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-test-"));
const results = []; // { pass, status: 'ran'|'skipped'|'error', ms, exit, report, note }
const tAll = Date.now();

const e2eWanted = process.env.CHIPS_E2E !== "0" && fs.existsSync(path.join(ROOT, "playwright.config.ts"));
if (process.env.CHIPS_E2E === "0") console.log("e2e: skipped (CHIPS_E2E=0)");

try {
  for (const pass of passes) {
    const jsonFile = path.join(tmp, `${pass}.json`);
    const env = baseEnv();
    env.CHIPS_TEST_DB = pass;

    if (pass === "pglite") {
      const t0 = Date.now();
      const exit = await runVitest(pass, env, jsonFile);
      const ms = Date.now() - t0;
      console.log(`=== pglite pass took ${secs(ms)} (vitest exit ${exit})`);
      results.push({ pass, status: "ran", ms, exit, report: readReport(jsonFile) });
      if (e2eWanted) results.at(-1).e2e = await runE2E(pass);
    } else {
      if (!findPgBin()) {
        if (process.env.CHIPS_REQUIRE_PG === "1") {
          console.error(
            "\n!!! Postgres pass FAILED: PostgreSQL binaries are missing " +
              "(looked in $CHIPS_PG_BIN and /usr/lib/postgresql/*/bin) and CHIPS_REQUIRE_PG=1",
          );
          results.push({ pass, status: "error", ms: 0, note: "PostgreSQL binaries missing" });
        } else {
          console.log(
            "\nPostgres pass SKIPPED: no PostgreSQL binaries found (set CHIPS_REQUIRE_PG=1 to make this an error)",
          );
          results.push({ pass, status: "skipped", ms: 0, note: "no PostgreSQL binaries found" });
        }
        continue;
      }
      const t0 = Date.now();
      let cluster;
      try {
        cluster = await startCluster();
        const startMs = Date.now() - t0;
        console.log(`=== postgres: cluster ready at ${cluster.url} (started in ${secs(startMs)})`);
        env.CHIPS_TEST_PG_URL = cluster.url;
        const exit = await runVitest(pass, env, jsonFile);
        const ms = Date.now() - t0;
        console.log(`=== postgres pass took ${secs(ms)} incl. cluster start ${secs(startMs)} (vitest exit ${exit})`);
        results.push({ pass, status: "ran", ms, exit, report: readReport(jsonFile) });
        if (e2eWanted) results.at(-1).e2e = await runE2E(pass, cluster.url); // before the cluster stops
      } catch (err) {
        console.error(`\n!!! postgres pass could not run: ${err.message}`);
        results.push({ pass, status: "error", ms: Date.now() - t0, note: err.message.split("\n")[0] });
      } finally {
        if (cluster) {
          const ts = Date.now();
          await cluster.stop().catch((e) => console.error(`cluster stop failed: ${e.message}`));
          console.log(`=== postgres: cluster stopped in ${secs(Date.now() - ts)}`);
        }
      }
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

// ---- summary ---------------------------------------------------------------

let passed = 0;
let failed = 0;
let skipped = 0;
let bad = false;
const lines = [];
for (const r of results) {
  if (r.status === "skipped") {
    lines.push(`${r.pass}: SKIPPED (${r.note})`);
    continue;
  }
  if (r.status === "error") {
    bad = true;
    lines.push(`${r.pass}: ERROR (${r.note})`);
    continue;
  }
  const rep = r.report;
  const problems = [];
  if (rep.error) {
    problems.push(rep.error);
  } else {
    passed += rep.passed;
    failed += rep.failed;
    skipped += rep.skipped;
    if (rep.failed > 0) problems.push(`${rep.failed} test(s) failed`);
    if (rep.failedFiles > 0) problems.push(`${rep.failedFiles} test file(s) failed`);
    if (rep.passed + rep.failed === 0) problems.push("0 tests ran");
  }
  if (r.exit !== 0) problems.push(`vitest exited ${r.exit}`);
  if (problems.length) bad = true;
  const counts = rep.error ? "no report" : `${rep.passed} passed, ${rep.failed} failed, ${rep.skipped} skipped`;
  lines.push(`${r.pass}: ${counts} (${secs(r.ms)})${problems.length ? `  <-- ${problems.join("; ")}` : ""}`);
  for (const f of rep.failures ?? []) lines.push(`  FAILED ${f}`);
  if (e2eWanted) {
    const e = summarizeE2E(r.pass, r.e2e);
    passed += e.passed;
    failed += e.failed;
    skipped += e.skipped;
    bad ||= e.bad;
    lines.push(e.line);
  }
}

if (results.every((r) => r.status !== "ran")) bad = true; // nothing ran at all
if (!e2eWanted) {
  lines.push(process.env.CHIPS_E2E === "0" ? "e2e: SKIPPED (CHIPS_E2E=0)" : "e2e: SKIPPED (no playwright.config.ts)");
}
lines.push(`total time ${secs(Date.now() - tAll)}${bad ? " — FAILED" : ""}`);

console.log("\n=== test summary");
for (const l of lines) console.log(l);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exitCode = bad ? 1 : 0;
