import { getTableColumns, getTableName, type Column, type Table } from "drizzle-orm";

/**
 * A table's rows for fixed SQL statements, derived from its drizzle definition (the one
 * place the column ↔ field mapping is written): whole rows go in as one JSON parameter
 * through `json_populate_recordset`, so a statement keeps one text whatever the number of
 * rows and whatever columns the table grows; rows come back through `json_agg` and are
 * decoded exactly as drizzle decodes them.
 */
export interface RowCodec<Row> {
  /** The select list for `json_agg`: every column, timestamps as the text drizzle reads. */
  jsonColumns: string;
  /** `insert into … select * from json_populate_recordset(…)` of the rows in parameter `param` (from `encode`). */
  insertFrom(param: string): string;
  /** The `on conflict` clause that replaces every column but `key` of a row already there. */
  onConflictReplace(key: keyof Row & string): string;
  encode(rows: Row[]): string;
  decode(row: Record<string, unknown>): Row;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
// json_agg would print a timestamp as ISO 8601; the drivers hand drizzle the type's own text.
const asText = (c: Column) => /^(timestamp|date|time|interval)/.test(c.getSQLType());

export function rowCodec<T extends Table>(table: T): RowCodec<T["$inferSelect"]> {
  const cols = Object.entries(getTableColumns(table)) as [string, Column][];
  const name = quote(getTableName(table));
  return {
    jsonColumns: cols
      .map(([, c]) => (asText(c) ? `${quote(c.name)}::text as ${quote(c.name)}` : quote(c.name)))
      .join(", "),
    insertFrom: (param) =>
      `insert into ${name} select * from json_populate_recordset(null::${name}, ${param}::text::json)`,
    onConflictReplace(key) {
      const set = cols.filter(([k]) => k !== key).map(([, c]) => `${quote(c.name)} = excluded.${quote(c.name)}`);
      return `on conflict (${quote(getTableColumns(table)[key].name)}) do update set ${set.join(", ")}`;
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
