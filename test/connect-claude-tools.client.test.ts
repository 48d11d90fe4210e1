import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, request, type Workspace } from "./support/api";
import { callHook, connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { until } from "./support/feed";
import { command } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [TOOL3] `chips connect claude` puts every tool call of a terminal session on the record,
 * from the hooks Claude Code 2.1.141 calls (the installed hook script, gate and drainer, as
 * real processes, fed the JSON the real CLI sends — test/connect-claude-cli.pg.test.ts runs
 * the CLI itself): PreToolUse starts a call, PostToolUse or PostToolUseFailure ends it.
 */
let server: TestServer;
let ws: Workspace;
let c: Connected | null = null;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());
afterEach(async () => {
  await c?.close();
  c = null;
});

let n = 0;
const sid = () => `7a1f0c2e-1111-4222-8333-${String(++n).padStart(12, "0")}`;
const call = (session_id: string, tool_name: string, tool_input: Record<string, unknown>) => ({
  session_id,
  tool_name,
  tool_input,
  tool_use_id: `toolu_tc_${++n}`,
});
const tools = async (runId: string) =>
  (await runEvents(server.url, ws, runId)).filter((e: any) => e.type.startsWith("tool."));

describe("[TOOL3] chips connect claude: each tool call's start and end", () => {
  it("[TOOL3] PreToolUse starts a call; PostToolUse ends it ok with Claude Code's time; PostToolUseFailure ends it failed with the exit code; secrets redacted", async () => {
    c = await connectClaude(server.url, ws);
    const settings = JSON.parse(fs.readFileSync(c.settings, "utf8"));
    expect(settings.hooks.PostToolUseFailure[0].matcher).toBe("*");
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Run the checks" });
    const runId = await waitForRun(server.url, ws, "Run the checks");

    const ok = call(s, "Bash", { command: "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 npm test" });
    await callHook(c, "PreToolUse", ok);
    await callHook(c, "PostToolUse", {
      ...ok,
      tool_response: { stdout: "12 passed", stderr: "", interrupted: false, isImage: false },
      duration_ms: 1234,
    });
    const bad = call(s, "Bash", { command: "npm run lint" });
    await callHook(c, "PreToolUse", bad);
    await callHook(c, "PostToolUseFailure", {
      ...bad,
      error: "Exit code 2\nsrc/a.ts: 3 problems",
      is_interrupt: false,
      duration_ms: 50,
    });
    const edit = call(s, "Edit", { file_path: `${c.project}/src/a.ts`, old_string: "a", new_string: "b" });
    await callHook(c, "PreToolUse", edit);
    await callHook(c, "PostToolUse", { ...edit, tool_response: { filePath: `${c.project}/src/a.ts` }, duration_ms: 3 });
    await until(async () => (await tools(runId)).length === 6, "three calls started and finished");

    const [okStart, okEnd, badStart, badEnd, editStart, editEnd] = await tools(runId);
    expect(okStart).toMatchObject({
      type: "tool.started",
      call_id: ok.tool_use_id,
      tool: "Bash",
      summary: "GITHUB_TOKEN=[redacted] npm test",
    });
    expect(JSON.stringify(okStart)).not.toContain("ghp_");
    expect(okEnd).toMatchObject({
      type: "tool.finished",
      outcome: "ok",
      exit_code: 0,
      duration_ms: 1234,
      output: "12 passed",
    });
    expect(badStart).toMatchObject({ call_id: bad.tool_use_id, summary: "npm run lint" });
    expect(badEnd).toMatchObject({ outcome: "failed", exit_code: 2, duration_ms: 50 });
    expect(badEnd.error).toContain("3 problems");
    expect(editStart).toMatchObject({
      tool: "Edit",
      summary: `Edit ${c.project}/src/a.ts`,
      paths: [`${c.project}/src/a.ts`],
    });
    expect(editEnd).toMatchObject({ outcome: "ok", files: [`${c.project}/src/a.ts`] });

    const run = (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
    expect(run.tools).toMatchObject({ count: 3, failed: 1, running: 0 });
  });

  it("[TOOL3] a call the room's steer denied before it ran is on the record whole, denied, with the reason", async () => {
    c = await connectClaude(server.url, ws);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Install things" });
    const runId = await waitForRun(server.url, ws, "Install things");
    expect((await command(server, ws, runId, "steer", "Use pnpm")).status).toBe(201);
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed");
    const denied = call(s, "Bash", { command: "npm install" });
    expect((await callHook(c, "PreToolUse", denied)).json.hookSpecificOutput.permissionDecision).toBe("deny");
    await until(async () => (await tools(runId)).length === 1, "the denied call");
    expect((await tools(runId))[0]).toMatchObject({
      type: "tool.finished",
      call_id: denied.tool_use_id,
      tool: "Bash",
      summary: "npm install",
      outcome: "denied",
      error: expect.stringContaining("guidance"),
    });
  });
});
