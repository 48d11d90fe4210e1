import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";

/** Table name → its rows, each as the JSON text Postgres makes of it. */
export type Dump = Record<string, string[]>;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * An ordered logical dump of every base table of the `public` schema, found through
 * information_schema so that a table added later is covered without touching this code.
 * Rows are serialized by Postgres itself (`row_to_json`, every column including
 * `workspaces.seq_head`) and ordered by every column as text in the "C" collation, so two
 * dumps of the same data are equal strings whatever the driver (PGlite or postgres-js).
 * `omit` names columns per table to leave out (bookkeeping a caller does not count as data).
 */
export async function dumpDatabase(database: Database, o: { omit?: Record<string, string[]> } = {}): Promise<Dump> {
  const tables = await database.query<{ table_name: string }>(
    sql`select table_name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE'
        order by table_name collate "C"`,
  );
  if (tables.length === 0) throw new Error("dump: no tables in the public schema");
  const out: Dump = {};
  for (const { table_name } of tables) {
    const columns = await database.query<{ column_name: string }>(
      sql`select column_name from information_schema.columns
          where table_schema = 'public' and table_name = ${table_name}
          order by ordinal_position`,
    );
    if (columns.length === 0) throw new Error(`dump: table ${table_name} has no columns`);
    const kept = columns.filter((c) => !o.omit?.[table_name]?.includes(c.column_name));
    const order = kept.map((c) => `${ident(c.column_name)}::text collate "C"`).join(", ");
    const list = kept.map((c) => ident(c.column_name)).join(", ");
    const rows = await database.query<{ dump_row: string }>(
      sql.raw(
        `select row_to_json(dump_t)::text as dump_row from (select ${list} from public.${ident(table_name)}) as dump_t order by ${order}`,
      ),
    );
    out[table_name] = rows.map((r) => r.dump_row);
  }
  return out;
}

/** Every artifact's bytes in the objects table (the store with DATABASE_URL). */
export async function storedObjects(database: Database): Promise<Buffer[]> {
  const rows = await database.query<{ body: Uint8Array }>(sql`select body from objects`);
  return rows.map((r) => Buffer.from(r.body));
}
