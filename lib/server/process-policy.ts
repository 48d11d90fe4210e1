import { log } from "./log";
import type { StorageHealth } from "./storage";

/**
 * The process-wide policy for what no handler caught (docs/ARCHITECTURE.md house rule 9: nothing kills the
 * process). A rejected promise nobody awaited is logged with its context and the server keeps
 * serving — one lost database connection must not take every room down; a storage error
 * also marks the database down so writes get 503 until it answers. A synchronous exception
 * that reached the top is different: the state it left is unknown, so it is logged and the
 * process exits for its supervisor to restart it.
 */
export function installProcessPolicy(storage: () => StorageHealth | null) {
  process.on("unhandledRejection", (reason) => {
    const s = storage();
    if (s?.failed(reason, "unhandled rejection")) return;
    log.error({ err: reason }, "unhandled rejection (kept serving): a handler is missing its try");
  });
  process.on("uncaughtException", (err, origin) => {
    log.fatal({ err, origin }, "uncaught exception: exiting");
    process.exit(1);
  });
}
