import type http from "node:http";
import { newId } from "@/lib/core/protocol";
import { harnessEvent, message, postBatch, type Workspace } from "../lib/api";

export interface SeededRoom {
  /** Events stored in the room. */
  total: number;
  runs: number;
  /** Seq of the newest event (a message, so it has a timeline item with data-seq). */
  newestSeq: number;
}

export const TEXTS = [
  (i: number) => `Checked the build, item ${i}: all green.`,
  (i: number) =>
    `Looking at **module ${i % 37}** next. The tests for it are in \`test/mod-${i % 37}.test.ts\`; two are flaky and I will note which.`,
  (i: number) =>
    `Here is what changed in step ${i}:\n\n- renamed the helper\n- moved the parser into its own file\n- added a test for the empty case\n\nNothing else moved.`,
  (i: number) =>
    `Patch for ${i}:\n\n\`\`\`ts\nexport function add(a: number, b: number) {\n  return a + b; // ${i}\n}\n\`\`\``,
  (i: number) => `ok ${i}`,
  (i: number) => `A longer note (${i}): ${"the quick brown fox jumps over the lazy dog, ".repeat(8)}and that is all.`,
];

/** A run's tool calls in a step: `calls` started and finished, a command now and then failing. */
function callEvents(r: (type: string, f: Record<string, unknown>) => unknown, calls: number, from: number) {
  const out: unknown[] = [];
  for (let i = from; i < from + calls; i++) {
    const call_id = `call-${i}`;
    const failed = i % 7 === 3;
    out.push(
      r("tool.started", {
        call_id,
        tool: i % 3 ? "Bash" : "Edit",
        summary: i % 3 ? `npm test -- --shard ${i}` : `Edit src/mod-${i % 37}.ts`,
      }),
    );
    out.push(
      r("tool.finished", {
        call_id,
        outcome: failed ? "failed" : "ok",
        exit_code: failed ? 1 : 0,
        duration_ms: 200 + (i % 11) * 150,
        output: failed ? `FAIL test/mod-${i % 37}.test.ts` : "ok",
        ...(i % 3 === 0 ? { files: [`src/mod-${i % 37}.ts`] } : {}),
      }),
    );
  }
  return out;
}

/** One run's events: started with a plan, steps and statuses (and `calls` tool calls), finished unless `open`. */
function runEvents(ws: Workspace, n: number, open: boolean, calls = 0) {
  const run_id = newId("run");
  const r = (type: string, f: Record<string, unknown>) => harnessEvent(ws, type, { run_id, ...f });
  const plan = ["Read the brief", "Survey the code", "Write the change", "Run the tests"].map((title, i) => ({
    step_id: `s${i + 1}`,
    title,
  }));
  const out: unknown[] = [r("run.started", { goal: `Bench run ${n}: tidy module ${n % 37}`, plan })];
  plan.forEach((s, i) => {
    out.push(r("run.step", { step_id: s.step_id, state: "active" }));
    out.push(r("run.status", { phase: "working", verb_phrase: `${s.title}…`, progress: (i + 0.5) / plan.length }));
    const per = Math.floor(calls / plan.length) + (i < calls % plan.length ? 1 : 0);
    out.push(...callEvents(r, per, i * calls));
    out.push(
      r("run.status", {
        phase: "working",
        verb_phrase: `Still ${s.title.toLowerCase()}…`,
        progress: (i + 0.9) / plan.length,
      }),
    );
    if (!open || i < plan.length - 1) out.push(r("run.step", { step_id: s.step_id, state: "done" }));
  });
  if (!open)
    out.push(
      r("run.finished", {
        outcome: n % 5 === 0 ? "failed" : "succeeded",
        summary: `Run ${n} done: ${n % 3} files changed.`,
      }),
    );
  return out;
}

/** The kinds of room seedRoom makes from one recipe. */
export interface RoomKind {
  /** Two-word messages only (an A/B for what the texts' Markdown costs the timeline). */
  short?: boolean;
  /** Tool calls per run ([TOOL5]): these events come on top of `total`, mixed into each run's steps. */
  callsPerRun?: number;
}

/**
 * A room of `total` events through the API in batches of 500: mostly message.posted (a mix
 * of short, markdown, code and long texts), plus one run per batch with steps and statuses
 * (the last two left running). The newest event is a message. With `callsPerRun`, each run
 * also makes that many tool calls: the same room, plus its runs' calls.
 */
export async function seedRoom(
  agent: http.Agent,
  url: string,
  ws: Workspace,
  total = 10_000,
  kind: RoomKind = {},
): Promise<SeededRoom> {
  const short = kind.short ?? false;
  const texts = short ? [(i: number) => `ok ${i}`] : TEXTS;
  let stored = 0;
  /** Events of the room without its tool calls: what `total` counts. */
  let base = 0;
  let runs = 0;
  let newestSeq = 0;
  let msg = 0;
  const batches = Math.ceil(total / 500);
  for (let b = 0; b < batches; b++) {
    const size = Math.min(500, total - base);
    const batch: unknown[] = [];
    let calls = 0;
    if (size > 40) {
      const made = runEvents(ws, ++runs, b >= batches - 2, kind.callsPerRun ?? 0);
      calls = (kind.callsPerRun ?? 0) * 2;
      batch.push(...made);
    }
    // Messages around the run, so the run card sits mid-batch; the batch ends with a message.
    const at = Math.floor(size / 3);
    const msgs = Array.from({ length: size - (batch.length - calls) }, () =>
      message(ws, texts[msg % texts.length](++msg)),
    );
    const events = [...msgs.slice(0, at), ...batch, ...msgs.slice(at)];
    base += events.length - calls;
    // A request holds at most 500 events: a batch with calls goes in order, 500 at a time.
    for (let i = 0; i < events.length; i += 500) {
      const out = await postBatch(agent, url, ws.token, events.slice(i, i + 500));
      stored += out.length;
      newestSeq = out[out.length - 1].seq;
    }
  }
  return { total: stored, runs, newestSeq };
}
