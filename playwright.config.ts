import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { E2E_SECRET } from "./e2e/support/own-server";

/**
 * End-to-end tests: the real production server (`node --import tsx server.ts`, NODE_ENV
 * production, so it needs `.next/BUILD_ID` — `npm test` builds once when it is missing),
 * one server per run on a fresh data directory; each test makes its own workspace.
 *
 *   CHIPS_E2E_PORT          the server's port (default 3210)
 *   CHIPS_E2E_DATABASE_URL  PostgreSQL for the server; empty or unset = embedded PGlite
 *   CHIPS_E2E_JSON          also write Playwright's JSON report to this file
 *   CHIPS_E2E_KEEP=1        keep the data directory after the run
 */

const port = Number(process.env.CHIPS_E2E_PORT || 3210);
const baseURL = `http://localhost:${port}`;

// Playwright evaluates this file in the runner and again in every worker. The runner makes
// the fresh data directory; workers inherit its path through the environment.
const isWorker = process.env.TEST_WORKER_INDEX !== undefined;
if (!isWorker) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-e2e-"));
  process.env.CHIPS_E2E_DATA_DIR = dir;
  if (process.env.CHIPS_E2E_KEEP !== "1") process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
}
const dataDir = process.env.CHIPS_E2E_DATA_DIR!;
process.env.CHIPS_E2E_BASE_URL = baseURL;

// Debian's Chromium when present (this machine, CI), and of it the old headless shell
// (chromium-headless-shell, which .ci/run installs) before the full browser: the same Blink,
// with ~30 % less browser CPU per test than the full browser's new headless mode — and the
// browser is most of the e2e run's CPU. Playwright's own browser elsewhere.
const systemChromium = ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"];
const executablePath = systemChromium.find((p) => fs.existsSync(p));

const jsonFile = process.env.CHIPS_E2E_JSON;

export default defineConfig({
  testDir: "e2e",
  // `*.pg.spec.ts` drive real agent CLIs (or several nodes on one database): the Postgres pass only.
  // `*.ui.spec.ts` check what the page draws (a11y, headers, sanitizing, the run panel, the room's
  // state and tasks, the review pages) from events posted through the API; the storage under them is the same code on both databases and is tested
  // on both by vitest, so they run once, on the PGlite pass — CI stays inside its time.
  testIgnore: process.env.CHIPS_E2E_DATABASE_URL ? ["**/*.ui.spec.ts"] : ["**/*.pg.spec.ts"],
  fullyParallel: false,
  workers: 1, // two cores: one for the browser and the tests, one for the server
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  forbidOnly: !!process.env.CI,
  reporter: jsonFile ? [["list"], ["json", { outputFile: jsonFile }]] : [["list"]],
  use: {
    baseURL,
    trace: "off",
    launchOptions: {
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: {
    command: "node --import tsx server.ts",
    url: `http://127.0.0.1:${port}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
      HOST: "127.0.0.1",
      CHIPS_PUBLIC_URL: baseURL,
      CHIPS_DATA_DIR: dataDir,
      // webServer.env is merged over the shell's: always say which database. Empty = PGlite.
      DATABASE_URL: process.env.CHIPS_E2E_DATABASE_URL ?? "",
      CHIPS_RATE_LIMIT: "0",
      // One address (127.0.0.1) runs every spec, some on purpose with spent links and revoked
      // sessions: the sign-in limit is tested in test/hardening.test.ts, not here.
      CHIPS_AUTH_ATTEMPTS: "0",
      // Nodes of one Chips share it: leases and object URLs verify on any node (e2e/objects-nodes.pg.spec.ts).
      CHIPS_SECRET: E2E_SECRET,
      // A browser taken offline ([RT2]) is noticed within 7 s, not the default 18 s.
      CHIPS_SOCKET_PING_INTERVAL: "2",
      CHIPS_SOCKET_PING_TIMEOUT: "5",
    },
  },
});
