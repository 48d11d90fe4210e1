import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCli } from "../cli/main";
import { serverWithWorkspace, request, type Workspace } from "./support/api";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

/** The CLI in-process, with its output captured. */
async function chips(args: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = await runCli(args, {
    env: { CHIPS_URL: server.url, CHIPS_DATA_DIR: "/nonexistent-chips-dir", ...env },
    io: { out: (s) => (out += s), err: (s) => (err += s) },
  });
  return { code, out, err };
}

describe("chips run start / chips runner token", () => {
  it("[RN1] run start queues a run for a runner: it prints the run id and the room; the run waits, queued, with what was asked", async () => {
    const r = await chips([
      "run",
      "start",
      "--repo",
      "web",
      "--prompt",
      "Fix the login test",
      "--check",
      "npm test",
      "--check",
      "npm run lint",
      "--secret",
      "NPM_TOKEN",
      "--profile",
      "read-only",
      "--token",
      ws.person_token,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const [runId, queued] = r.out.trim().split("\n");
    expect(runId).toMatch(/^run_[0-9A-Z]{26}$/);
    expect(queued).toContain(`/w/${ws.workspace_id}/r/${ws.space_id}`);
    const run = (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
    expect(run).toMatchObject({
      state: "queued",
      goal: "Fix the login test",
      goal_from: "chips",
      runner: null,
      request: {
        repository: "web",
        base_branch: "main",
        agent: "codex",
        profile: "read-only",
        required_commands: ["npm test", "npm run lint"],
        secrets: ["NPM_TOKEN"],
      },
    });
  });

  it("[RN5] run start takes --instructions, --provider and --model into the run's request; a provider for Claude Code is refused at /provider", async () => {
    const r = await chips([
      "run",
      "start",
      "--repo",
      "web",
      "--prompt",
      "Fix it",
      "--instructions",
      "Keep the diff small.\nExplain each change.",
      "--provider",
      "azure",
      "--model",
      "gpt-test",
      "--token",
      ws.person_token,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const runId = r.out.trim().split("\n")[0];
    const run = (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
    expect(run.request).toMatchObject({
      instructions: "Keep the diff small.\nExplain each change.",
      provider: "azure",
      model: "gpt-test",
    });
    const claude = await chips([
      "run",
      "start",
      "--repo",
      "web",
      "--prompt",
      "x",
      "--agent",
      "claude",
      "--provider",
      "bedrock",
      "--token",
      ws.person_token,
    ]);
    expect(claude.code).toBe(1);
    expect(claude.err).toMatch(/error validation_failed: the claude agent takes no provider/);
    expect(claude.err).toMatch(/at \/provider/);
  });

  it("run start refuses a bad request with the field at fault, and needs --repo and --prompt", async () => {
    const bad = await chips([
      "run",
      "start",
      "--repo",
      "web",
      "--prompt",
      "x",
      "--profile",
      "danger-full-access",
      "--token",
      ws.person_token,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/error validation_failed/);
    expect(bad.err).toMatch(/at \/profile/);
    const missing = await chips(["run", "start", "--prompt", "x", "--token", ws.person_token]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/needs --repo/);
  });

  it("[RN1] runner token mints a runner identity (admin) that the server accepts on /api/v1/me as a runner", async () => {
    const r = await chips(["runner", "token", "--workspace", ws.workspace_id, "--name", "laptop", "--json"], {
      CHIPS_ADMIN_TOKEN: server.adminToken,
    });
    expect(r.code).toBe(0);
    const made = JSON.parse(r.out);
    expect(made.runner_id).toMatch(/^rnr_/);
    const me = await request(`${server.url}/api/v1/me`, { token: made.token });
    expect(me.body).toMatchObject({ kind: "runner", id: made.runner_id, workspace_id: ws.workspace_id });
    const denied = await chips(["runner", "token", "--workspace", ws.workspace_id], { CHIPS_ADMIN_TOKEN: ws.token });
    expect(denied.code).toBe(1);
  });

  it("runner refuses to start without an allowlist, or with a repository that is not a git repository", async () => {
    const none = await chips(["runner", "--token", "x"]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/needs at least one --repo/);
    const notGit = await chips(["runner", "--token", "x", "--repo", "web=/nonexistent"]);
    expect(notGit.code).toBe(2);
    expect(notGit.err).toMatch(/is not a git repository/);
  });
});
