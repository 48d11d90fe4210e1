import { sql } from "drizzle-orm";
import type { Committed } from "../ingest/writer";
import { log } from "../log";
import type { ChipsServices } from "../services";
import { runsAsSpans, serializeSpans } from "./otlp-out";

/**
 * The continuous exporter ([OTL8], docs/OTEL.md): with CHIPS_OTLP_EXPORT_URL set, every run that
 * finishes is sent as GenAI spans to that OTLP/HTTP traces URL. A finish only queues the run
 * (a row in `otlp_exports`, written after the commit, never in its way); a timer sends what is
 * due, one request a run, and retries a failure with backoff — 1 s, 2 s, 4 s… up to 10 minutes,
 * for a day — so a receiver that is down delays the spans, never ingest. The queue is in the
 * database: a restart, or another node, picks it up. A receiver's refusal that a retry cannot
 * mend (400, 401, 403, 404, 413) drops the run from the queue, logged.
 */

const BATCH = 10;
const TIMEOUT_MS = 10_000;
const MAX_BACKOFF_S = 600;
const GIVE_UP_AFTER = 150; // ~a day at the longest backoff
const FINAL = new Set([400, 401, 403, 404, 413, 415]);

type Deps = Pick<ChipsServices, "database" | "db" | "storage">;

/** `k=v,k2=v2` (values percent-encoded, as OTEL_EXPORTER_OTLP_HEADERS) as headers. */
function parseHeaders(list: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of list.split(",").filter((p) => p.trim())) {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`CHIPS_OTLP_EXPORT_HEADERS: "${pair}" is not k=v`);
    out[decodeURIComponent(pair.slice(0, at).trim()).toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

export class OtlpExporter {
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private closed = false;
  private readonly headers: Record<string, string>;

  constructor(
    private svc: Deps,
    private url: string,
    headers: string,
  ) {
    this.headers = { ...parseHeaders(headers), "content-type": "application/x-protobuf" };
  }

  start(everyMs = 1000) {
    this.timer = setInterval(() => this.kick(), everyMs);
    this.timer.unref();
  }

  async close() {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.sending;
  }

  /** A commit listener: each run.finished queues its run. Never throws, never waits. */
  committed = (workspaceId: string, batch: Committed[]) => {
    const runs = batch.filter((c) => c.event.type === "run.finished").map((c) => c.event.run_id!);
    if (!runs.length) return;
    void this.queue(workspaceId, runs).then(() => this.kick());
  };

  private async queue(workspaceId: string, runIds: string[]) {
    try {
      for (const id of runIds)
        await this.svc.database.query(
          sql`insert into otlp_exports (run_id, workspace_id) values (${id}, ${workspaceId}) on conflict (run_id) do nothing`,
        );
    } catch (e) {
      log.error({ err: e, runIds }, "could not queue finished runs for the OTLP export");
    }
  }

  /** Send what is due now, unless a round is under way. */
  kick() {
    if (this.sending || this.closed || !this.svc.storage.available) return;
    this.sending = this.round().then(() => {
      this.sending = null;
    }); // round() catches what it meets
  }

  private async round() {
    try {
      for (;;) {
        // Claimed for a minute: another node skips them meanwhile; a node that dies leaves them due again.
        const due = await this.svc.database.query<{ run_id: string; workspace_id: string; attempts: number }>(sql`
          update otlp_exports set attempts = attempts + 1, next_at = now() + interval '60 seconds'
           where run_id in (select run_id from otlp_exports where next_at <= now() order by next_at limit ${BATCH} for update skip locked)
           returning run_id, workspace_id, attempts`);
        for (const row of due) await this.send(row);
        if (due.length < BATCH || this.closed) return;
      }
    } catch (e) {
      if (!this.svc.storage.failed(e, "otlp export")) log.error({ err: e }, "the OTLP export round failed");
    }
  }

  private async send(row: { run_id: string; workspace_id: string; attempts: number }) {
    let error: string;
    let final = false;
    try {
      const spans = await runsAsSpans(this.svc.db, row.workspace_id, [row.run_id]);
      const body = serializeSpans(spans, "protobuf", row.workspace_id);
      const res = await fetch(this.url, {
        method: "POST",
        headers: this.headers,
        body: new Uint8Array(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.arrayBuffer(); // the answer read whole, so the connection can be reused
      if (res.ok) {
        await this.svc.database.query(sql`delete from otlp_exports where run_id = ${row.run_id}`);
        return;
      }
      error = `HTTP ${res.status}`;
      final = FINAL.has(res.status);
    } catch (e) {
      error = (e as Error).message;
    }
    const giveUp = final || row.attempts >= GIVE_UP_AFTER;
    log.warn({ runId: row.run_id, error, attempts: row.attempts, giveUp }, "could not send a run to the OTLP receiver");
    const wait = Math.min(MAX_BACKOFF_S, 2 ** Math.min(20, row.attempts - 1));
    await this.svc.database.query(
      giveUp
        ? sql`delete from otlp_exports where run_id = ${row.run_id}`
        : sql`update otlp_exports set next_at = now() + make_interval(secs => ${wait}), last_error = ${error} where run_id = ${row.run_id}`,
    );
  }
}
