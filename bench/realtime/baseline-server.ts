/**
 * The bare baseline: no Chips logic. A plain HTTP POST handler that inserts one row into a
 * table shaped like Chips' `events` (same keys and indexes) and does a plain `io.emit` to
 * every client. Same database kind as the Chips server it is compared with: PGlite in this
 * process (CHIPS_DATA_DIR), or PostgreSQL through postgres-js (DATABASE_URL, pool of 10
 * like Chips). Answers `join` and `history` so the bench clients need no special case.
 *
 * BASELINE_DB=memory stores nothing: a seq counter and an array in this process. That is the
 * step-up's ceiling — HTTP in, one `io.emit` out, the same poster and clients — so what it
 * cannot hold on a machine, no server with a database can (the database-backed baseline
 * commits every event on its own and falls behind long before Chips' group commit does).
 *
 *   PORT=0 HOST=127.0.0.1 CHIPS_DATA_DIR=/tmp/x node --import tsx bench/realtime/baseline-server.ts
 */
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";

type Query = (text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const DDL = [
  `create table if not exists events (
     workspace_id text not null, seq bigserial not null, id text not null, type text not null,
     space_id text, idempotency_key text, body text not null, ts timestamptz not null default now(),
     primary key (workspace_id, seq))`,
  `create unique index if not exists events_id_key on events (id)`,
  `create unique index if not exists events_idem on events (workspace_id, idempotency_key) where idempotency_key is not null`,
  `create index if not exists events_space_seq on events (workspace_id, space_id, seq)`,
];

/** The two statements the baseline runs, answered from memory. */
function memoryDb(): { query: Query; close(): Promise<void> } {
  const rows: Record<string, unknown>[] = [];
  return {
    async query(text, p) {
      if (text.startsWith("insert")) {
        rows.push({ seq: rows.length + 1, space_id: p[3], body: p[5] });
        return [{ seq: rows.length }];
      }
      if (!text.startsWith("select")) return []; // the DDL
      const [, spaceId, before, limit] = p as [string, string, number, number];
      const out: Record<string, unknown>[] = [];
      for (let i = Math.min(rows.length, before - 1) - 1; i >= 0 && out.length < limit; i--)
        if (rows[i].space_id === spaceId) out.push(rows[i]);
      return out;
    },
    close: async () => {},
  };
}

async function openDb(): Promise<{ query: Query; close(): Promise<void> }> {
  if (process.env.BASELINE_DB === "memory") return memoryDb();
  const url = process.env.DATABASE_URL;
  if (url) {
    const { default: postgres } = await import("postgres");
    const sql = postgres(url, { max: 10, onnotice: () => {}, prepare: true });
    return {
      query: (t, p) => sql.unsafe(t, p as never[], { prepare: true }) as unknown as Promise<Record<string, unknown>[]>,
      close: () => sql.end({ timeout: 5 }),
    };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const pg = await PGlite.create({ dataDir: path.join(process.env.CHIPS_DATA_DIR ?? ".", "baseline-pgdata") });
  return { query: async (t, p) => (await pg.query<Record<string, unknown>>(t, p)).rows, close: () => pg.close() };
}

async function main() {
  const db = await openDb();
  for (const d of DDL) await db.query(d, []);

  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/api/v1/events") return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const e = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const ts = new Date().toISOString();
        const body = JSON.stringify({ ...e, ts });
        const [row] = await db.query(
          "insert into events (workspace_id, id, type, space_id, idempotency_key, body, ts) values ($1, $2, $3, $4, $5, $6, $7) returning seq",
          [e.workspace_id, e.id, e.type, e.space_id ?? null, e.idempotency_key ?? null, body, ts],
        );
        const stored = { ...e, ts, seq: Number(row.seq) };
        io.emit("events", [stored]);
        res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ events: [stored] }));
      } catch (err) {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
      }
    });
  });

  const io = new Server(server, { path: "/socket.io", serveClient: false, maxHttpBufferSize: 64 * 1024 });
  io.on("connection", (socket) => {
    socket.on("join", (_raw: unknown, ack?: (a: unknown) => void) => ack?.({ ok: true, head_seq: 0 }));
    // The same query shape as a room's history, on the (workspace_id, space_id, seq) index.
    socket.on(
      "history",
      async (
        raw: { workspace_id?: string; space_id?: string; before_seq?: number | null; limit?: number },
        ack?: (a: unknown) => void,
      ) => {
        const before = raw?.before_seq ?? Number.MAX_SAFE_INTEGER;
        const rows = await db.query(
          "select seq, body from events where workspace_id = $1 and space_id = $2 and seq < $3 order by seq desc limit $4",
          [raw?.workspace_id ?? "", raw?.space_id ?? "", before, Math.min(1000, raw?.limit ?? 200)],
        );
        ack?.({ ok: true, events: rows.reverse().map((r) => ({ ...JSON.parse(String(r.body)), seq: Number(r.seq) })) });
      },
    );
  });

  await new Promise<void>((r) =>
    server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => r()),
  );
  const { port } = server.address() as AddressInfo;
  console.log(`baseline listening on http://127.0.0.1:${port}`);
  const stop = async () => {
    io.disconnectSockets(true);
    server.closeAllConnections();
    await new Promise<void>((r) => io.close(() => r()));
    await db.close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
