// The Playwright end-to-end suite (e2e/) for one pass of `npm test` (scripts/test.mjs):
// the real production server on that pass's database — PGlite, or a fresh database in
// the pass's PostgreSQL cluster — on a free port. The vitest filter args never apply
// here: e2e always runs whole.

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PLAYWRIGHT = path.join(ROOT, "node_modules", ".bin", "playwright");
const NEXT = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const BUILD_ID = path.join(ROOT, ".next", "BUILD_ID");
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;

/** Newest mtime under the sources a production build bundles. */
function newestSource() {
  let newest = 0;
  const walk = (p) => {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const f of fs.readdirSync(p)) walk(path.join(p, f));
    else if (st.mtimeMs > newest) newest = st.mtimeMs;
  };
  for (const p of ["app", "components", "lib", "db", "next.config.ts", "postcss.config.mjs", "package.json"]) {
    walk(path.join(ROOT, p));
  }
  return newest;
}

let build = null; // once per `npm test`: { ok: true } | { ok: false, note }

/** `next build` once when there is no production build, or it is older than the sources. */
async function ensureBuild(spawn) {
  if (build) return build;
  let why = null;
  if (!fs.existsSync(BUILD_ID)) why = "no production build (.next/BUILD_ID missing)";
  else if (newestSource() > fs.statSync(BUILD_ID).mtimeMs) why = "the production build is older than the sources";
  if (!why) return (build = { ok: true });
  console.log(`\n=== e2e: ${why}; running \`next build\` once`);
  const t0 = Date.now();
  const exit = await spawn(process.execPath, [NEXT, "build"], { ...process.env, NEXT_TELEMETRY_DISABLED: "1" });
  console.log(`=== e2e: next build took ${secs(Date.now() - t0)} (exit ${exit})`);
  build =
    exit === 0 && fs.existsSync(BUILD_ID) ? { ok: true } : { ok: false, note: `next build failed (exit ${exit})` };
  return build;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh, empty database in the pass's cluster for the e2e server; answers its URL. */
async function freshDatabase(clusterUrl) {
  const { default: postgres } = await import("postgres");
  const name = `chips_e2e_${process.pid}_${Date.now().toString(36)}`;
  const sql = postgres(clusterUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create database ${name}`);
  } finally {
    await sql.end();
  }
  const u = new URL(clusterUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A failure message's first non-blank line, without terminal colours, at most 200 characters. */
export const firstLine = (message) =>
  (
    stripVTControlCharacters(String(message ?? ""))
      .split("\n")
      .find((l) => l.trim()) ?? ""
  )
    .trim()
    .slice(0, 200);

/** Each spec that did not pass, as "file › title: first line of its error", for the summary. */
function failedSpecs(suites, out = []) {
  for (const suite of suites) {
    for (const spec of suite.specs ?? []) {
      if (spec.ok !== false) continue;
      const error = spec.tests?.flatMap((t) => t.results ?? []).find((x) => x.error)?.error?.message ?? "";
      out.push(`e2e/${spec.file} › ${spec.title}: ${firstLine(error)}`);
    }
    failedSpecs(suite.suites ?? [], out);
  }
  return out;
}

function readReport(jsonFile) {
  try {
    const r = JSON.parse(fs.readFileSync(jsonFile, "utf8"));
    const st = r.stats ?? {};
    return {
      passed: st.expected ?? 0,
      failed: (st.unexpected ?? 0) + (st.flaky ?? 0), // retries are 0: flaky means it failed once
      skipped: st.skipped ?? 0,
      errors: (r.errors ?? []).map((e) => (e.message ?? String(e)).split("\n")[0]),
      failures: failedSpecs(r.suites ?? []),
    };
  } catch (err) {
    return { error: `Playwright JSON report ${jsonFile} missing or unreadable (${err.code ?? err.message})` };
  }
}

/**
 * Build if needed, then `playwright test` for one pass. `spawn(cmd, args, env)` runs a
 * child and resolves its exit. Answers { status: 'ran'|'error', ms, exit?, report?, note? }.
 */
export async function runPlaywright(pass, { clusterUrl, jsonFile, env, spawn }) {
  const t0 = Date.now();
  const built = await ensureBuild(spawn);
  if (!built.ok) return { status: "error", ms: Date.now() - t0, note: built.note };
  const e = { ...env, CHIPS_E2E_JSON: jsonFile };
  delete e.CHIPS_E2E_DATA_DIR; // playwright.config.ts makes a fresh one
  e.CHIPS_E2E_PORT = process.env.CHIPS_E2E_PORT || String(await freePort());
  try {
    e.CHIPS_E2E_DATABASE_URL = clusterUrl ? await freshDatabase(clusterUrl) : "";
  } catch (err) {
    return { status: "error", ms: Date.now() - t0, note: `no e2e database: ${err.message.split("\n")[0]}` };
  }
  console.log(
    `\n=== ${pass}: e2e: playwright test (port ${e.CHIPS_E2E_PORT}, ${clusterUrl ? e.CHIPS_E2E_DATABASE_URL : "PGlite"})`,
  );
  const tRun = Date.now();
  const exit = await spawn(PLAYWRIGHT, ["test"], e);
  const ms = Date.now() - t0;
  console.log(`=== ${pass}: e2e took ${secs(ms)} (playwright ${secs(Date.now() - tRun)}, exit ${exit})`);
  return { status: "ran", ms, exit, report: readReport(jsonFile) };
}

/** One summary line for a pass's e2e run, and what it adds to the totals. */
export function summarizeE2E(pass, e2e) {
  const none = { passed: 0, failed: 0, skipped: 0 };
  if (!e2e) return { ...none, bad: true, line: `${pass} e2e: ERROR (not run)` };
  if (e2e.status === "error") return { ...none, bad: true, line: `${pass} e2e: ERROR (${e2e.note})` };
  const rep = e2e.report;
  const problems = [];
  if (rep.error) problems.push(rep.error);
  else {
    if (rep.failed > 0) problems.push(`${rep.failed} e2e test(s) failed`);
    if (rep.passed + rep.failed === 0) problems.push("0 e2e tests ran");
    problems.push(...rep.errors);
  }
  if (e2e.exit !== 0) problems.push(`playwright exited ${e2e.exit}`);
  const counts = rep.error ? "no report" : `${rep.passed} passed, ${rep.failed} failed, ${rep.skipped} skipped`;
  return {
    passed: rep.passed ?? 0,
    failed: rep.failed ?? 0,
    skipped: rep.skipped ?? 0,
    bad: problems.length > 0,
    line: [
      `${pass} e2e: ${counts} (${secs(e2e.ms)})${problems.length ? `  <-- ${problems.join("; ")}` : ""}`,
      ...(rep.failures ?? []).map((f) => `  FAILED ${f}`),
    ].join("\n"),
  };
}
