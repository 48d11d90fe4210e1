import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Works under "type": "module" (no __dirname in ESM).
const root = path.dirname(fileURLToPath(import.meta.url));
const globalSetupFile = "test/support/global-setup.ts";

export default defineConfig({
  resolve: {
    alias: { "@": path.resolve(root) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // `*.pg.test.ts` need a real Postgres (several nodes on one database, real agent CLIs, faults):
    // the Postgres pass only. `*.client.test.ts` test our clients (the CLI, the SDK, the demo
    // harness, the connect hooks) against a real server over HTTP; the server's storage under
    // them is the same code on both databases and tested on both by the other files, so they run
    // once, on the PGlite pass — CI stays inside its time. `*.unit.test.ts` touch no database at
    // all (pure functions, the linter, the docs, the model stand-in), so they run once as well.
    exclude:
      process.env.CHIPS_TEST_DB === "postgres"
        ? ["test/**/*.client.test.ts", "test/**/*.unit.test.ts"]
        : ["test/**/*.pg.test.ts"],
    environment: "node",
    globalSetup: existsSync(path.join(root, globalSetupFile)) ? [globalSetupFile] : [],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A worker runs its files one after another in one process, modules loaded once: a fresh
    // process per file cost each file its own Node start and module graph (~3 CPU-s), ~20 % of
    // the PGlite pass's CPU on 2 cores. Every file still starts its own servers on its own
    // databases (test/support/server.ts) and closes them in afterAll.
    isolate: false,
    fileParallelism: true,
    maxWorkers: 2,
    watch: false,
  },
});
