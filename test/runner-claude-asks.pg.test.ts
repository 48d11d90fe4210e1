import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { readEvents } from "./support/api";
import { claudeWorld, type ClaudeWorld } from "./support/claude-world";
import { until } from "./support/feed";
import { command } from "./support/harness";
import {
  bash,
  lastUserText,
  read,
  resultText,
  say,
  toolResultsSinceUser,
  workdirOf,
  type Block,
} from "./support/messages-server";
import { tcpProxy } from "./support/proxies";
import { answerAs, askTrail, asksOf, waitingAsk, worktreeOf } from "./support/run-asks";
import type { Runner } from "../lib/agents/runner/runner";

/**
 * The `ask` profile with the REAL Claude Code CLI (2.1.141) in the runner's sandbox, through
 * the real server (only the model is scripted): reads run at once; a command or an edit asks
 * the room (`--permission-prompt-tool stdio`), and a person's answer — given here through the
 * same API the room's buttons call — decides it; nothing else ever widens.
 */
const SECONDS = 12;
let world: ClaudeWorld | null = null;
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
  await world?.close();
  world = null;
});

const tool = (name: string, input: Record<string, unknown>): Block => ({
  type: "tool_use",
  id: `toolu_${name}_${Math.random().toString(36).slice(2, 10)}`,
  name,
  input,
});

/**
 * A model that makes the calls `steps(workdir)` names for a prompt, one per turn, then answers
 * `FINAL` with every tool result it got, so the room's last message says what the agent was told.
 */
function scripted(byPrompt: Record<string, (wd: string) => Block[]>) {
  return ({ messages, body }: { messages: any[]; body: any }) => {
    const steps = byPrompt[lastUserText(messages) ?? ""];
    if (!steps) return { blocks: [say("?")] };
    const results = toolResultsSinceUser(messages);
    const next = steps(workdirOf(body))[results.length];
    if (next) return { blocks: [next] };
    return {
      blocks: [say(`FINAL ${JSON.stringify(results.map((r) => ({ error: !!r.is_error, text: resultText(r) })))}`)],
    };
  };
}

async function finalWords(w: ClaudeWorld, runId: string): Promise<{ error: boolean; text: string }[]> {
  const said = (await readEvents(w.server, w.ws)).filter(
    (e: any) => e.run_id === runId && e.type === "message.posted" && /^FINAL /.test(e.text),
  );
  expect(said, "the agent's final answer").toHaveLength(1);
  return JSON.parse(said[0].text.slice("FINAL ".length));
}

describe("runner + real Claude Code, profile ask", { timeout: 240_000 }, () => {
  test("[RN6] [ASK4] a read runs unasked; the command asks the room: Allow → it ran; a question is answered with the option chosen; Deny with a note → not run, the model reads the note; the run succeeds either way", async () => {
    world = await claudeWorld({
      runner: { askSeconds: SECONDS },
      messages: scripted({
        "Make the file": (wd) => [
          read(`${wd}/README.md`),
          bash("echo made > made.txt"),
          tool("AskUserQuestion", {
            questions: [
              {
                question: "Which color should the button be?",
                header: "Color",
                options: [
                  { label: "Red", description: "warm" },
                  { label: "Blue", description: "cool" },
                ],
                multiSelect: false,
              },
            ],
          }),
        ],
        "Try to write": () => [bash("echo nope > nope.txt")],
      }),
    });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Make the file", profile: "ask" });
    const first = await waitingAsk(w, runId);
    expect(first.request).toMatchObject({
      kind: "permission",
      tool: "Bash",
      summary: "echo made > made.txt",
      command: "echo made > made.txt",
      scope: "Bash",
      expires_in_seconds: SECONDS,
      source: "claude-prompt-tool",
    });
    const worktree = await worktreeOf(w, runId);
    expect(fs.existsSync(path.join(worktree, "made.txt")), "nothing runs before the answer").toBe(false);
    await answerAs(w, runId, first.ask_id, { decision: "allow" });
    const q = await waitingAsk(w, runId, 2);
    expect(q.request).toMatchObject({
      kind: "question",
      question: "Which color should the button be?",
      options: [
        { id: "o1", label: "Red", description: "warm" },
        { id: "o2", label: "Blue", description: "cool" },
      ],
      free_text: true,
    });
    await answerAs(w, runId, q.ask_id, { option_id: "o2" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");
    expect(fs.readFileSync(path.join(worktree, "made.txt"), "utf8")).toBe("made\n");
    const results = await finalWords(w, runId);
    expect(results).toHaveLength(3);
    expect(results[0].error).toBe(false); // the read: never asked
    expect(results[1]).toEqual({ error: false, text: expect.not.stringMatching(/denied|not run/i) });
    expect(results[2].text).toMatch(/User has answered your questions: "Which color should the button be\?"="Blue"/);
    expect((await asksOf(w, runId)).map((a) => [a.request.kind, a.state])).toEqual([
      ["permission", "applied"],
      ["question", "applied"],
    ]);
    expect(await askTrail(w, runId)).toEqual([
      "run.asked",
      "run.answered",
      "run.answer_applied:applied",
      "run.asked",
      "run.answered",
      "run.answer_applied:applied",
    ]);

    const denied = await w.startRun({ agent: "claude", prompt: "Try to write", profile: "ask" });
    const ask = await waitingAsk(w, denied);
    await answerAs(w, denied, ask.ask_id, { decision: "deny", note: "not today, use the fixture" });
    const after = await w.waitRun(denied, (r) => r.state === "finished", "the denied run finishes");
    expect(after.outcome, "a person's denial is an answer, not a failure").toBe("succeeded");
    expect(await finalWords(w, denied)).toEqual([
      { error: true, text: "A person in the Chips room denied this tool call: not today, use the fixture" },
    ]);
    expect(fs.existsSync(path.join(await worktreeOf(w, denied), "nope.txt"))).toBe(false);
    expect(await askTrail(w, denied)).toEqual(["run.asked", "run.answered", "run.answer_applied:applied"]);
  });

  test("[RN6] [RN8] nobody answers: denied at the profile's deadline with the reason, the ask closed expired (deny); a cancel while an ask waits closes it", async () => {
    world = await claudeWorld({
      runner: { askSeconds: 3 },
      messages: scripted({
        "Wait for nobody": () => [bash("echo late > late.txt")],
        "Be cancelled": () => [bash("echo never > never.txt")],
      }),
    });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Wait for nobody", profile: "ask" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");
    expect(await finalWords(w, runId)).toEqual([
      { error: true, text: "No answer from a person in the Chips room within 3 s: the call was not run." },
    ]);
    expect(fs.existsSync(path.join(await worktreeOf(w, runId), "late.txt"))).toBe(false);
    const [ask] = await asksOf(w, runId);
    expect(ask).toMatchObject({ state: "closed", closed_reason: "expired", applied_default: "deny" });

    const doomed = await w.startRun({ agent: "claude", prompt: "Be cancelled", profile: "ask" });
    const waiting = await waitingAsk(w, doomed);
    expect((await command(w.server, w.ws, doomed, "cancel")).status).toBe(201);
    await w.waitRun(doomed, (r) => r.state === "finished" && r.outcome === "cancelled", "cancelled");
    await until(async () => (await asksOf(w, doomed))[0].state === "closed", "the waiting ask closed");
    expect(["cancelled", "run_finished"]).toContain((await asksOf(w, doomed))[0].closed_reason);
    expect(waiting.ask_id).toBe((await asksOf(w, doomed))[0].ask_id);
    expect(fs.existsSync(path.join(await worktreeOf(w, doomed), "never.txt"))).toBe(false);
  });

  test("[RN7] Allow for this run covers the tool for the rest of the run and nothing more: later commands run unasked, still inside the sandbox; a tool outside the profile is denied unasked", async () => {
    const outside = path.join(path.dirname(process.cwd()), `chips-outside-${process.pid}-${Date.now()}.txt`);
    cleanup.push(() => fs.rmSync(outside, { force: true }));
    world = await claudeWorld({
      runner: { askSeconds: SECONDS },
      messages: scripted({
        "Widen once": () => [
          bash("echo one > one.txt"),
          bash("echo two > two.txt"),
          bash(`echo escaped > ${outside}`),
          tool("WebFetch", { url: "https://example.invalid/", prompt: "read it" }),
        ],
      }),
    });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Widen once", profile: "ask" });
    const ask = await waitingAsk(w, runId);
    await answerAs(w, runId, ask.ask_id, { decision: "allow_for_run" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");
    const worktree = await worktreeOf(w, runId);
    expect(fs.readFileSync(path.join(worktree, "one.txt"), "utf8")).toBe("one\n");
    expect(fs.readFileSync(path.join(worktree, "two.txt"), "utf8")).toBe("two\n");
    expect(fs.existsSync(outside), "the sandbox did not widen").toBe(false);
    const results = await finalWords(w, runId);
    expect(results[2]).toMatchObject({ error: true, text: expect.stringMatching(/Read-only file system/) });
    expect(results[3]).toEqual({
      error: true,
      text: expect.stringMatching(/^WebFetch is not allowed in this run's permission profile \(ask\)/),
    });
    const asks = await asksOf(w, runId);
    expect(asks.map((a) => [a.state, a.answer?.scope])).toEqual([["applied", "Bash"]]);
  });

  test("[RN8] Chips unreachable when the agent asks: the call is denied at once with the reason and the session goes on; the run's end arrives when Chips is back", async () => {
    world = await claudeWorld({
      runner: { askSeconds: 60 },
      messages: scripted({ "Ask while Chips is away": () => [bash("echo one > one.txt")] }),
    });
    const w = world;
    await w.runner.close();
    const proxy = await tcpProxy(w.server.url);
    cleanup.push(() => proxy.close());
    let runner: Runner | null = w.makeRunner({ url: proxy.url, askSeconds: 60 });
    cleanup.push(() => runner?.close());
    await runner.connect();
    const runId = await w.startRun({ agent: "claude", prompt: "Ask while Chips is away", profile: "ask" });
    await w.waitRun(runId, (r) => r.state === "running", "the run starts");
    proxy.cut();
    const t0 = Date.now();
    await until(() => finished(w), "the agent goes on", 120_000);
    const got = w.messages.requests.flatMap((r) => toolResultsSinceUser(r.messages)).map((r: any) => resultText(r));
    expect(got.at(-1)).toMatch(/^Chips could not be reached to ask a person \(.+\): not run\.$/);
    expect(Date.now() - t0, "denied well before the 60 s deadline").toBeLessThan(45_000);
    proxy.restore();
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run's end arrives", 120_000);
    expect(run.outcome, run.summary).toBe("succeeded");
    expect(await asksOf(w, runId)).toEqual([]); // the ask never reached Chips: nothing left open
    await runner.close();
    runner = null;
  });
});

/** True once the model was asked for its final answer (the FINAL turn was served). */
function finished(w: ClaudeWorld): boolean {
  return w.messages.requests.some((r) => toolResultsSinceUser(r.messages).length > 0);
}
