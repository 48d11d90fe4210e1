import postgres from "postgres";

/** The bench's own connection to the throwaway cluster: databases, checkpoints, and watching. */
export function pgAdmin(adminUrl: string) {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  let n = 0;
  return {
    sql,
    /** A new empty database on the cluster, and its URL. */
    async freshDatabase(prefix: string): Promise<{ name: string; url: string }> {
      const name = `${prefix}_${process.pid}_${++n}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
      await sql.unsafe(`create database ${name}`);
      const u = new URL(adminUrl);
      u.pathname = `/${name}`;
      return { name, url: u.toString() };
    },
    /** Flush dirty pages now, so one scenario's checkpoint does not land in the next one's window. */
    checkpoint: () => sql`checkpoint`.then(() => undefined),
    /** The next transaction id: its delta over a window counts the write transactions (commits) in it. */
    async nextXid(): Promise<number> {
      const [r] = await sql`select pg_snapshot_xmax(pg_current_snapshot())::text as x`;
      return Number(r.x);
    },
    async version(): Promise<string> {
      const [r] = await sql`show server_version`;
      return String(r.server_version);
    },
    async settings(): Promise<Record<string, string>> {
      const names = [
        "fsync",
        "synchronous_commit",
        "wal_sync_method",
        "commit_delay",
        "shared_buffers",
        "max_wal_size",
      ];
      const rows = await sql`select name, setting, unit from pg_settings where name = any(${names})`;
      return Object.fromEntries(rows.map((r) => [r.name, `${r.setting}${r.unit ? ` ${r.unit}` : ""}`]));
    },
    /**
     * Sample what the backends of one database are doing every ~10 ms: running on CPU,
     * waiting on WAL flush (commit fsync), on a lock, or idle in a transaction waiting for
     * the next statement from Node (ClientRead) — which says whose side the time is on.
     */
    watch(dbName: string) {
      const tally = new Map<string, number>();
      let samples = 0;
      let running = true;
      const loop = (async () => {
        while (running && samples < 20_000) {
          const rows = await sql`
            select state, wait_event_type, wait_event from pg_stat_activity
            where datname = ${dbName} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
          for (const r of rows) {
            const k =
              r.state === "active"
                ? r.wait_event === "ClientRead"
                  ? "mid-statement, waiting for Node's next message"
                  : r.wait_event_type
                    ? `active, waiting ${r.wait_event_type}:${r.wait_event}`
                    : "active, on CPU"
                : r.state === "idle in transaction"
                  ? "in a transaction, waiting for Node's next statement"
                  : r.state === "idle"
                    ? "idle (no transaction open)"
                    : String(r.state);
            tally.set(k, (tally.get(k) ?? 0) + 1);
          }
          samples++;
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      return {
        async stop(): Promise<{ samples: number; states: [string, number][] }> {
          running = false;
          await loop;
          // Average number of backends in each state at any instant.
          const states = [...tally]
            .map(([k, v]) => [k, v / Math.max(1, samples)] as [string, number])
            .sort((a, b) => b[1] - a[1]);
          return { samples, states };
        },
      };
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

export type PgAdmin = ReturnType<typeof pgAdmin>;
