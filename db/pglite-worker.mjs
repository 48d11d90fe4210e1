// The embedded PGlite, in a worker thread the server owns (db/pglite-worker-client.ts), so
// its WebAssembly never blocks the server's event loop. Plain JavaScript: it must load
// under tsx, vitest and plain Node alike. One message in = one statement; PGlite runs
// them one at a time in the order they arrive, which is the order they were sent.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, parse, protocol, types } from "@electric-sql/pglite";

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

const { serialize } = protocol;
const wire = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
};

/** Named statements by text: the fixed statements (db/client.ts `run`) are parsed once, as on postgres-js. */
const named = new Map();
const MAX_NAMED = 256;

/**
 * One fixed statement through its named prepared statement: Bind, Describe, Execute and
 * Sync in one call into PGlite, where `query` sends Parse and Describe with every call and
 * steps into the WebAssembly once per message. The first call parses it and learns its
 * parameter types; values are serialized as `query` does. Past MAX_NAMED distinct texts
 * (a caller building texts) it falls back to `query`.
 */
async function runNamed(text, params) {
  let st = named.get(text);
  if (!st) {
    if (named.size >= MAX_NAMED) return pg.query(text, params);
    const name = `chips_${named.size + 1}`;
    const { messages } = await pg.execProtocol(
      wire(serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()),
    );
    st = { name, types: parse.parseDescribeStatementResults(messages) };
    named.set(text, st);
  }
  const values = params.map((v, i) =>
    v === null || v === undefined ? null : (pg.serializers[st.types[i]] ?? String)(v),
  );
  const { messages } = await pg.execProtocol(
    wire(
      serialize.bind({ statement: st.name, values }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
      serialize.sync(),
    ),
  );
  return parse.parseResults(messages, pg.parsers)[0];
}

const handle = (m) => {
  if (m.close) return pg.close().then(() => ({ rows: [] }));
  if (m.named) return runNamed(m.text, m.params ?? []);
  return pg.query(m.text, m.params, { rowMode: m.rowMode });
};

// One message at a time, in arrival order: execProtocol does not queue behind `query` as
// `query` calls queue behind each other.
// A statement's failure is its answer; only a failure to answer at all rejects the chain,
// which ends the worker (an unhandled rejection) and the client starts a new one.
let tail = Promise.resolve();
parentPort.on("message", (m) => {
  tail = tail.then(async () => {
    let answer;
    try {
      const r = await handle(m);
      answer = { id: m.id, rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
    } catch (e) {
      answer = { id: m.id, error: errorData(e) };
    }
    parentPort.postMessage(answer);
  });
});
