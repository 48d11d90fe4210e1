import postgres from "postgres";
import { startCluster } from "../../scripts/pg-cluster.mjs";

export type DbKind = "pglite" | "postgres";

export interface PgCluster {
  url: string;
  version: string;
  /** A fresh database on the cluster; its URL. */
  createDb(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** A throwaway PostgreSQL cluster (fsync on, trust auth on loopback) for one bench run. */
export async function startPg(): Promise<PgCluster> {
  const c = (await startCluster({ quiet: true })) as { url: string; stop(): Promise<void> };
  const admin = postgres(c.url, { max: 1, onnotice: () => {} });
  const [{ server_version }] = await admin`show server_version`;
  let n = 0;
  return {
    url: c.url,
    version: String(server_version),
    async createDb(name) {
      const db = `${name.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${++n}`;
      await admin.unsafe(`create database ${db}`);
      return c.url.replace(/\/postgres$/, `/${db}`);
    },
    async stop() {
      await admin.end({ timeout: 5 }).catch(() => {});
      await c.stop();
    },
  };
}

export function parseDbFlag(v: string | undefined): DbKind[] {
  if (!v || v === "both") return ["pglite", "postgres"];
  if (v === "pglite" || v === "postgres") return [v];
  throw new Error(`--db takes pglite, postgres or both (not ${v})`);
}
