import { Readable } from "node:stream";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { objects } from "@/db/schema";
import type { BlobBackend } from "./objects";

/**
 * Objects in PostgreSQL (`objects`, bytea), so a diff uploaded through one node opens from
 * a browser on any other. Content-addressed: a second upload of the same bytes is a no-op.
 */
export class PgBlobs implements BlobBackend {
  constructor(private db: Db) {}

  async put(key: string, body: Buffer) {
    const [workspaceId, runId, sha256] = key.split("/");
    await this.db
      .insert(objects)
      .values({ key, workspaceId, runId, sha256, bytes: body.length, body })
      .onConflictDoNothing();
  }

  async exists(key: string) {
    const [row] = await this.db
      .select({ one: sql<number>`1` })
      .from(objects)
      .where(eq(objects.key, key))
      .limit(1);
    return !!row;
  }

  async open(key: string) {
    const [row] = await this.db
      .select({ body: objects.body })
      .from(objects)
      .where(and(eq(objects.key, key)))
      .limit(1);
    return row ? Readable.from([Buffer.from(row.body)]) : null;
  }
}
