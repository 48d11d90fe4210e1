import type { Run as Statement } from "./client";
import { rowCodec } from "./row-codec";
import { runs } from "./schema";
import type { RunListItem } from "../lib/core/protocol";

/**
 * The review indexer's statements (lib/server/review/indexer.ts): where a workspace's index
 * stands against its log, the log's next events, the runs they touched, and one guarded
 * write of their index rows. Fixed texts, lists as array or JSON parameters.
 */

const runRows = rowCodec(runs);
export type RunRow = typeof runs.$inferSelect;
const num = (v: unknown) => Number(v); // int8 is a string on postgres-js, a number on PGlite

/** The index's seq (null: never indexed) and the log's head (null: no such workspace). */
export async function indexPosition(
  run: Statement,
  workspaceId: string,
): Promise<{ cursor: number | null; head: number | null }> {
  const [row] = await run<{ cursor: unknown; head: unknown }>(
    `select (select seq from review_cursor where workspace_id = $1) as cursor, (select seq_head from workspaces where id = $1) as head`,
    [workspaceId],
  );
  return { cursor: row.cursor === null ? null : num(row.cursor), head: row.head === null ? null : num(row.head) };
}

export const startIndex = (run: Statement, workspaceId: string) =>
  run(`insert into review_cursor (workspace_id, seq) values ($1, 0) on conflict (workspace_id) do nothing`, [
    workspaceId,
  ]);

/** Run events of the log after a seq, ascending, up to `limit` events of any kind (the last seq read comes back too). */
export async function eventsAfter(run: Statement, workspaceId: string, after: number, limit: number) {
  const rows = await run<{ seq: unknown; run_id: string | null; body: string }>(
    `select seq, run_id, body from events where workspace_id = $1 and seq > $2 order by seq limit $3`,
    [workspaceId, after, limit],
  );
  return rows.map((r) => ({ seq: num(r.seq), runId: r.run_id, body: r.body }));
}

export async function runsById(run: Statement, ids: string[]): Promise<RunRow[]> {
  if (!ids.length) return [];
  const rows = await run<{ r: Record<string, unknown> }>(
    `select row_to_json(y) as r from unnest($1::text[]) as k(key) cross join lateral (select ${runRows.jsonColumns} from runs where id = k.key limit 1) y`,
    [ids],
  );
  return rows.map((row) => runRows.decode(typeof row.r === "string" ? JSON.parse(row.r) : row.r));
}

/** One tool call's index row ([TOOL6]): what a round's events said of it (a start, an end, or both). */
export interface CallRow {
  run_id: string;
  call_id: string;
  workspace_id: string;
  tool: string | null;
  outcome: string | null;
  duration_ms: number | null;
  started_at: string | null;
  finished_at: string | null;
}

/** One run's index row as the indexer writes it: the list's row (its id as `run_id`), plus the words to add to its document. */
export type IndexRow = Omit<RunListItem, "id"> & {
  run_id: string;
  workspace_id: string;
  last_seq: number;
  words: string[];
};

const REPLACED = [
  "space_id",
  "state",
  "outcome",
  "goal",
  "goal_from",
  "harness_id",
  "agent",
  "created_at",
  "started_at",
  "finished_at",
  "duration_ms",
  "steps_done",
  "steps_planned",
  "tokens",
  "cost_usd",
  "files",
  "additions",
  "deletions",
  "failed_checks",
  "verdict",
  "annotations",
  "last_seq",
];

// Only if the cursor still stands where this batch read from: another node (or a second
// call here) that indexed the same events first leaves this write storing nothing.
const WRITE = `with cur as (
    update review_cursor set seq = $3 where workspace_id = $1 and seq = $2 returning 1
  ), rows as (
    select r.*, x.j -> 'words' as words from json_array_elements($4::text::json) as x(j)
    cross join lateral json_populate_record(null::run_index, x.j) as r
  ), stored as (
    insert into run_index (run_id, workspace_id, ${REPLACED.join(", ")}, person_id, doc)
    select run_id, workspace_id, ${REPLACED.join(", ")}, person_id,
      array_to_tsvector(array(select json_array_elements_text(words)))
    from rows where exists (select from cur)
    on conflict (run_id) do update set ${REPLACED.map((c) => `${c} = excluded.${c}`).join(", ")},
      person_id = coalesce(run_index.person_id, excluded.person_id),
      doc = run_index.doc || excluded.doc
    returning 1
  ), calls as (
    -- A call's start and end may come in different rounds: each fills in what it knows; an
    -- end without its own duration is timed from the start already indexed (the fold's rule).
    insert into tool_call_index
    select * from json_populate_recordset(null::tool_call_index, $5::text::json) where exists (select from cur)
    on conflict (run_id, call_id) do update set
      tool = coalesce(tool_call_index.tool, excluded.tool),
      started_at = coalesce(tool_call_index.started_at, excluded.started_at),
      outcome = coalesce(excluded.outcome, tool_call_index.outcome),
      finished_at = coalesce(excluded.finished_at, tool_call_index.finished_at),
      duration_ms = coalesce(excluded.duration_ms,
        case when excluded.finished_at is not null and tool_call_index.started_at is not null
          then greatest(0, round(extract(epoch from excluded.finished_at - tool_call_index.started_at) * 1000))::bigint end,
        tool_call_index.duration_ms)
    returning 1
  )
  select (select count(*) from cur)::int as moved`;

/** Store index rows and move the cursor from `from` to `to`; false when the cursor was elsewhere. */
export async function writeIndex(
  run: Statement,
  workspaceId: string,
  from: number,
  to: number,
  rows: IndexRow[],
  calls: CallRow[],
): Promise<boolean> {
  const [r] = await run<{ moved: unknown }>(WRITE, [
    workspaceId,
    from,
    to,
    JSON.stringify(rows),
    JSON.stringify(calls),
  ]);
  return num(r.moved) === 1;
}
