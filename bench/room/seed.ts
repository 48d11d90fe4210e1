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

/** One run's events: started with a plan, steps and statuses, finished unless `open`. */
function runEvents(ws: Workspace, n: number, open: boolean) {
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

/**
 * A room of `total` events through the API in batches of 500: mostly message.posted (a mix
 * of short, markdown, code and long texts), plus one run per batch with steps and statuses
 * (the last two left running). The newest event is a message. `short`: every message is
 * two words (an A/B for what the texts' Markdown costs the timeline).
 */
export async function seedRoom(
  agent: http.Agent,
  url: string,
  ws: Workspace,
  total = 10_000,
  short = false,
): Promise<SeededRoom> {
  const texts = short ? [(i: number) => `ok ${i}`] : TEXTS;
  let stored = 0;
  let runs = 0;
  let newestSeq = 0;
  let msg = 0;
  const batches = Math.ceil(total / 500);
  for (let b = 0; b < batches; b++) {
    const size = Math.min(500, total - stored);
    const batch: unknown[] = [];
    if (size > 40) {
      batch.push(...runEvents(ws, ++runs, b >= batches - 2));
    }
    // Messages around the run, so the run card sits mid-batch; the batch ends with a message.
    const at = Math.floor(size / 3);
    const msgs = Array.from({ length: size - batch.length }, () => message(ws, texts[msg % texts.length](++msg)));
    const events = [...msgs.slice(0, at), ...batch, ...msgs.slice(at)];
    const out = await postBatch(agent, url, ws.token, events);
    stored += out.length;
    newestSeq = out[out.length - 1].seq;
  }
  return { total: stored, runs, newestSeq };
}
