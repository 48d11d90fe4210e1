import { describe, expect, it } from "vitest";
import { newId, type IncomingEvent, type Run, type StoredEvent } from "../lib/core/protocol";
import { foldRun } from "../lib/core/projection/run";
import { applyRequest } from "../lib/server/ingest/apply";
import { BatchState } from "../lib/server/ingest/batch-state";
import { bodyHash } from "../lib/server/ingest/serialize";
import type { Credential } from "../lib/server/credentials";

/**
 * [DRV1] The judge's last line, without a database: the batch state is built by hand so
 * that a derived event and its notice are both refused (the run's room is unknown to the
 * batch, as it was before the writer read the rooms of the runs a budget reaches). The
 * server's own tests reach the notice itself (test/budgets.test.ts).
 */

const ws = newId("workspace");
const harness = newId("harness");
const cred: Credential = { kind: "harness", workspaceId: ws, subjectId: harness };
const ts = new Date().toISOString();

function running(spaceId: string, seq: number): Run {
  const started = {
    v: 1,
    type: "run.started",
    id: newId("event"),
    workspace_id: ws,
    space_id: spaceId,
    run_id: newId("run"),
    goal: "Ship it",
    idempotency_key: newId("event"),
    actor: { kind: "harness", id: harness },
    ts,
    seq,
  } as StoredEvent;
  return foldRun(null, started)!;
}

describe("[DRV1] a derived event never fails its cause", () => {
  it("[DRV1] a budget's pause refused, and its notice too, leaves the report stored and is handed back to be logged", () => {
    const here = newId("space");
    const lost = newId("space");
    const reporter = running(here, 1);
    const other = running(lost, 2);
    const s = new BatchState(2);
    s.spaceHeads.set(here, 1); // the other run's room is not known to this batch
    s.runs.set(reporter.id, reporter);
    s.runs.set(other.id, other);
    s.budgetDay = ts.slice(0, 10);
    s.budgets.set(harness, {
      subject: harness,
      tokensPerDay: 100,
      tokensPerMonth: null,
      microUsdPerDay: null,
      microUsdPerMonth: null,
      warnAt: 0.8,
    });
    const report = {
      v: 1,
      type: "run.status",
      id: newId("event"),
      workspace_id: ws,
      run_id: reporter.id,
      idempotency_key: "report-1",
      actor: { kind: "harness", id: harness },
      phase: "working",
      verb_phrase: "Working…",
      usage: { input_tokens: 100, output_tokens: 0 },
    } as IncomingEvent;

    const out = applyRequest(
      s,
      { credential: cred, events: [report], hashes: [bodyHash(report, cred)], pointers: [""] },
      ts,
    );

    if (!out.ok) throw new Error(`refused: ${out.problem.detail}`);
    // The report, then the reporter's own pause; the other run's pause became a notice, refused in turn.
    expect(out.accepted.map((a) => [a.event.type, a.event.run_id])).toEqual([
      ["run.status", reporter.id],
      ["run.command", reporter.id],
    ]);
    expect(out.accepted.map((a) => a.event.seq)).toEqual([3, 4]);
    expect(out.unrecorded).toHaveLength(1);
    expect(out.unrecorded[0].event).toMatchObject({
      type: "run.notice",
      run_id: other.id,
      space_id: lost,
      code: "space_not_found",
      derived: { type: "run.command", command: "pause" },
    });
    expect(out.unrecorded[0].problem.code).toBe("space_not_found");
  });
});
