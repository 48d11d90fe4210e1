import type { CallRow } from "@/db/review-sql";
import type { StoredEvent } from "@/lib/core/protocol";

/**
 * A round's tool calls as `tool_call_index` rows ([TOOL6]): one row per call, whatever of it
 * the round saw — a start names the tool and the time, an end the outcome and duration (the
 * fold's rule: the agent's time, else the server's from the start, when the start is in the
 * same round; the write times it from an earlier round's start). One row per call, so the
 * write's upsert never meets a call twice.
 */
export class CallRows {
  private rows = new Map<string, CallRow>();
  /** Calls whose start is in this round: their end is timed from it here. */
  private begun = new Set<string>();

  add(e: StoredEvent): void {
    if (e.type !== "tool.started" && e.type !== "tool.finished") return;
    const key = `${e.run_id} ${e.call_id}`;
    let row = this.rows.get(key);
    if (!row) {
      row = {
        run_id: e.run_id!,
        call_id: e.call_id,
        workspace_id: e.workspace_id,
        tool: null,
        outcome: null,
        duration_ms: null,
        started_at: null,
        finished_at: null,
      };
      this.rows.set(key, row);
    }
    if (e.tool) row.tool = e.tool;
    if (e.type === "tool.started") {
      row.started_at = e.ts;
      this.begun.add(key);
      return;
    }
    const begun = this.begun.has(key);
    if (!begun && e.summary !== undefined) row.started_at = e.ts; // a whole call is dated by its end
    row.outcome = e.outcome;
    row.finished_at = e.ts;
    row.duration_ms = e.duration_ms ?? (begun ? Math.max(0, Date.parse(e.ts) - Date.parse(row.started_at!)) : null);
  }

  list(): CallRow[] {
    return [...this.rows.values()];
  }
}
