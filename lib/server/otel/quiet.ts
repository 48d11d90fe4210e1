import { PROTOCOL_VERSION } from "@/lib/core/protocol";
import { ingest } from "../ingest/post-events";
import { log } from "../log";
import type { ChipsServices } from "../services";
import { hashedId } from "./plan";
import { quietRuns } from "./sessions";

/**
 * A session's end is its silence ([OTL4]): Claude Code's and Codex's logs never say that a
 * session ended, so a run made from telemetry that heard nothing for `quietSeconds` is
 * finished by its harness's name, `succeeded`, saying why. Every node sweeps; the finish has a
 * key and body drawn from the run, so two nodes finishing one run store it once.
 */
export class QuietSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private svc: Pick<ChipsServices, "database" | "db" | "writer" | "limiter" | "storage">,
    private quietSeconds: number,
  ) {}

  start() {
    const every = Math.min(30_000, Math.max(500, (this.quietSeconds * 1000) / 4));
    this.timer = setInterval(() => {
      if (!this.running && this.svc.storage.available)
        // sweep() catches whatever it meets: this promise never rejects.
        this.running = this.sweep().then(() => {
          this.running = null;
        });
    }, every);
    this.timer.unref();
  }

  async close() {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Finish the quiet runs found now; answers how many. */
  async sweep(): Promise<number> {
    let finished = 0;
    try {
      for (const r of await quietRuns(this.svc.database, this.quietSeconds)) {
        const key = `otel:quiet:${r.runId}`;
        const a = await ingest(
          this.svc,
          { kind: "harness", workspaceId: r.workspaceId, subjectId: r.harnessId },
          {
            v: PROTOCOL_VERSION,
            type: "run.finished",
            id: hashedId("evt_", `${r.workspaceId}:${key}`),
            workspace_id: r.workspaceId,
            run_id: r.runId,
            idempotency_key: key,
            actor: { kind: "harness", id: r.harnessId },
            outcome: "succeeded",
            summary: `No telemetry for ${this.quietSeconds} s: the session is taken as ended.`,
          },
        );
        if (a.ok) finished++;
        else if (a.problem.code !== "run_finished")
          log.warn(
            { runId: r.runId, code: a.problem.code, detail: a.problem.detail },
            "could not finish a quiet telemetry run",
          );
      }
    } catch (e) {
      if (!this.svc.storage.failed(e, "otel quiet sweep"))
        log.error({ err: e }, "the quiet sweep of telemetry runs failed");
    }
    return finished;
  }
}
