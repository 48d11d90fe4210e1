// The embedded PGlite, in a worker thread the server owns (db/pglite-worker-client.ts), so
// its WebAssembly never blocks the server's event loop. Plain JavaScript: it must load
// under tsx, vitest and plain Node alike. One message in = one statement; PGlite runs
// them one at a time in the order they arrive, which is the order they were sent.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, types } from "@electric-sql/pglite";

// Dates, times and numeric arrays as the text PostgreSQL prints: what drizzle asks PGlite
// for on every query (drizzle-orm/pglite), here for every statement.
const raw = (v) => v;
const parsers = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map((oid) => [
    oid,
    raw,
  ]),
);

/** Everything a PostgreSQL error says (code, detail, constraint…), as plain data. */
function errorData(e) {
  const out = { message: e instanceof Error ? e.message : String(e) };
  if (e && typeof e === "object")
    for (const [k, v] of Object.entries(e))
      if (v === null || ["string", "number", "boolean"].includes(typeof v)) out[k] = v;
  return out;
}

let pg;
try {
  pg = await PGlite.create({ dataDir: workerData.dataDir, parsers });
  parentPort.postMessage({ ready: true });
} catch (e) {
  parentPort.postMessage({ ready: false, error: errorData(e) });
  process.exit(1);
}

parentPort.on("message", (m) => {
  if (m.close) {
    pg.close().then(
      () => parentPort.postMessage({ id: m.id, rows: [] }),
      (e) => parentPort.postMessage({ id: m.id, error: errorData(e) }),
    );
    return;
  }
  pg.query(m.text, m.params, { rowMode: m.rowMode }).then(
    (r) => parentPort.postMessage({ id: m.id, rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }),
    (e) => parentPort.postMessage({ id: m.id, error: errorData(e) }),
  );
});
