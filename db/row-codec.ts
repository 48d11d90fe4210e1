import { getTableColumns, getTableName, type Column, type Table } from "drizzle-orm";

/**
 * A table's rows for fixed SQL statements, derived from its drizzle definition (the one
 * place the column ↔ field mapping is written): whole rows go in as one JSON parameter
 * through `json_populate_recordset`, so a statement keeps one shape whatever the number
 * of rows and whatever columns the table grows; rows read back are decoded exactly as
 * drizzle would decode them.
 */
export interface RowCodec<Row> {
  /** The table's columns, quoted, in table order (for `select`). */
  columns: string;
  /** Insert rows given as `$1` (the JSON of `encode`). */
  insert: string;
  /** Insert rows given as `$1`, or replace every column but `key` of a row already there. */
  upsert(key: keyof Row & string): string;
  encode(rows: Row[]): string;
  decode(row: Record<string, unknown>): Row;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function rowCodec<T extends Table>(table: T): RowCodec<T["$inferSelect"]> {
  const cols = Object.entries(getTableColumns(table)) as [string, Column][];
  const name = quote(getTableName(table));
  const insert = `insert into ${name} select * from json_populate_recordset(null::${name}, $1::text::json)`;
  return {
    columns: cols.map(([, c]) => quote(c.name)).join(", "),
    insert,
    upsert(key) {
      const set = cols.filter(([k]) => k !== key).map(([, c]) => `${quote(c.name)} = excluded.${quote(c.name)}`);
      return `${insert} on conflict (${quote(getTableColumns(table)[key].name)}) do update set ${set.join(", ")}`;
    },
    encode: (rows) =>
      JSON.stringify(
        rows.map((r) => {
          const out: Record<string, unknown> = {};
          // JSON columns stay nested values here (not drizzle's stringified driver form).
          for (const [k, c] of cols) out[c.name] = (r as Record<string, unknown>)[k] ?? null;
          return out;
        }),
      ),
    decode: (row) => {
      const out: Record<string, unknown> = {};
      for (const [k, c] of cols) {
        const v = row[c.name];
        out[k] = v === null || v === undefined ? null : c.mapFromDriverValue(v);
      }
      return out as T["$inferSelect"];
    },
  };
}
