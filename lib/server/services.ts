import type { Database } from "@/db/client";
import type { ChipsConfig } from "@/lib/env";
import type { StoredEvent } from "@/lib/protocol";
import { CredentialStore } from "./credentials";
import { RateLimiter } from "./ingest/rate-limit";
import { IngestWriter } from "./ingest/writer";

/** The server's services, built once from config and a database. Transport-free. */
export interface ChipsServices {
  config: ChipsConfig;
  database: Database;
  db: Database["db"];
  credentials: CredentialStore;
  writer: IngestWriter;
  limiter: RateLimiter;
  /** Listeners told, after each commit, of the new events in seq order. */
  committed: Set<(workspaceId: string, events: StoredEvent[], bodies: string[]) => void>;
  roomUrl(workspaceId: string, spaceId: string): string;
}

export function createServices(config: ChipsConfig, database: Database): ChipsServices {
  const committed: ChipsServices["committed"] = new Set();
  const writer = new IngestWriter(database.db, {
    maxBatchEvents: config.maxBatchEvents,
    maxQueueEvents: config.maxQueueEvents,
    onCommit: (ws, events, bodies) => {
      for (const fn of committed) fn(ws, events, bodies);
    },
  });
  return {
    config,
    database,
    db: database.db,
    credentials: new CredentialStore(database.db),
    writer,
    limiter: new RateLimiter(config.rateLimit, config.rateBurst),
    committed,
    roomUrl: (ws, spc) => `${config.publicUrl}/w/${ws}/r/${spc}`,
  };
}
