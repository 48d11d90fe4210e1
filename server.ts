import "./lib/server/gc-tuning";
import path from "node:path";
import { loadConfig } from "./lib/server/env";
import { startChips } from "./lib/server/start";
import { DATA_FILES } from "./lib/server/bootstrap";
import { installProcessPolicy } from "./lib/server/process-policy";
import type { StorageHealth } from "./lib/server/storage";
import { log } from "./lib/server/log";

let storage: StorageHealth | null = null;
installProcessPolicy(() => storage);

/** The custom Node server: the API, Next.js pages and (later) Socket.IO on one port. */
async function main() {
  const config = loadConfig();
  const chips = await startChips(config);
  storage = chips.services.storage;
  const { defaults } = chips.boot;
  const where =
    chips.services.database.kind === "postgres" ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.dataDir}`;
  console.log(`Chips is serving on ${config.publicUrl} (${where}).`);
  console.log(`Chips is listening on ${chips.url}`);
  if (config.banner) {
    const relative = path.relative(process.cwd(), config.dataDir);
    const rel = !relative ? "." : relative.startsWith("..") ? config.dataDir : relative;
    console.log(
      [
        ``,
        `  Room:        ${await chips.services.loginUrl(defaults.workspace_id, defaults.space_id, defaults.person_id)}`,
        `               (a one-time login link; \`npx chips login\` prints another)`,
        `  Workspace:   ${defaults.workspace_id}`,
        `  Harness:     ${defaults.harness_id} (token in ${rel}/${DATA_FILES.harness})`,
        ``,
        `  Watch an agent work: open the room above, then run the demo harness:`,
        `    npx chips demo                            a run with a plan, statuses and messages; try Pause, Steer, Cancel`,
        `    npx chips demo --ask                      halfway it asks the room for a permission: Allow or Deny it there`,
        ``,
        `  Run a real agent (Codex CLI or Claude Code) in its own git worktree:`,
        `    npx chips runner token                    a runner identity and its token (shown once)`,
        `    npx chips runner --token T --repo NAME=/path/to/repo   then "Start a run" in the room (README: Runners)`,
        ``,
        `  Try the CLI (it talks to this server over HTTP):`,
        `    npx chips init --json                     a new workspace, room, harness token and person token`,
        `    npx chips post event.json --token TOKEN   post one event or a batch`,
        `    npx chips events --workspace WS --after 0 read events back`,
        `    npx chips login                           a fresh login link for another browser`,
        ``,
      ].join("\n"),
    );
  }
  let stopping = false;
  // A load balancer sees this node not ready at once; the process leaves within the bound ([OPS4]).
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    chips.stopTakingWork();
    console.log(`Chips: ${signal}, shutting down.`);
    const bound = config.shutdownTimeoutSeconds;
    setTimeout(() => {
      log.error({ ...chips.stillOpen(), boundSeconds: bound }, "shutdown did not finish within its bound: exiting");
      process.exit(1);
    }, bound * 1000);
    try {
      await chips.close();
    } catch (e) {
      log.error({ err: e }, "shutdown failed");
      process.exit(1);
    }
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((e) => {
  console.error(`Chips could not start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
