import { afterEach, describe, expect, test } from "vitest";
import { request } from "./support/api";
import { claudeWorld } from "./support/claude-world";
import { say as claudeSay } from "./support/messages-server";
import { say, startModelServer, type ModelServer } from "./support/model-server";
import { runnerWorld, type World } from "./support/runner-world";

/**
 * [RN5] What a start asks of the agent — its instructions, model and provider — reaches the
 * REAL agent CLI: the scripted model (Codex's Responses API, Claude Code's Messages API)
 * records every request it receives, and the test reads the instructions and the model there.
 */
let world: World | null = null;
let second: ModelServer | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
  await second?.close();
  second = null;
});

/** Quotes, a backslash, newlines, a tab and a control character: all of it must arrive as written. */
const INSTRUCTIONS = 'Answer in haiku.\nNever touch "vendor/" \\ keep\ttabs.\u0007 Sign as: — Chips ✓';

/** The text of a Responses API input item's content. */
const textOf = (item: any) =>
  Array.isArray(item?.content) ? item.content.map((c: any) => c?.text ?? "").join("") : String(item?.content ?? "");

describe("[RN5] a start's instructions, model and provider reach the agent", { timeout: 180_000 }, () => {
  test("[RN5] Codex: the instructions are its developer instructions, the model its -m, the provider the one of the runner's providers the start picked", async () => {
    second = await startModelServer(() => ({ items: [say("done on the second provider")] }));
    world = await runnerWorld({
      script: () => ({ items: [say("done on the default provider")] }),
      codexExtra: [
        'model_providers.second.name="second"',
        `model_providers.second.base_url="${second.url}"`,
        'model_providers.second.wire_api="responses"',
      ],
      codex: { models: ["mock-model", "second-model"] },
    });
    const w = world;
    // The runner advertises what a start may pick; the start form offers exactly these.
    const online = await request(`${w.server.url}/api/v1/workspaces/${w.ws.workspace_id}/runners`, {
      token: w.ws.person_token,
    });
    expect(online.body.runners[0].adapters[0]).toMatchObject({
      agent: "codex",
      models: ["mock-model", "second-model"],
      providers: ["mock", "second"],
    });

    const runId = await w.startRun({ provider: "second", model: "second-model", instructions: INSTRUCTIONS });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome).toBe("succeeded");
    expect(run.request).toMatchObject({ provider: "second", model: "second-model", instructions: INSTRUCTIONS });

    expect(w.model.requests).toEqual([]); // the default provider was not asked
    expect(second.requests.length).toBeGreaterThan(0);
    const first = second.requests[0];
    expect(first.model).toBe("second-model");
    const developer = first.input.filter((i: any) => i.role === "developer").map(textOf);
    expect(developer.some((t: string) => t.includes(INSTRUCTIONS))).toBe(true);
  });

  test("[RN5] Claude Code: the instructions are appended to its system prompt, the model is its --model", async () => {
    const w = await claudeWorld({ messages: () => ({ blocks: [claudeSay("done")] }) });
    world = w;
    const runId = await w.startRun({ agent: "claude", model: "claude-chips-test", instructions: INSTRUCTIONS });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome).toBe("succeeded");
    const asked = w.messages.requests.filter((r: any) => r.model === "claude-chips-test");
    expect(asked.length).toBeGreaterThan(0);
    const system = asked[0].system;
    const systemText = Array.isArray(system) ? system.map((b: any) => b.text ?? "").join("\n") : String(system);
    expect(systemText).toContain(INSTRUCTIONS);
    // Not in the conversation: the instructions are the system prompt's, not a user turn's.
    expect(JSON.stringify(asked[0].messages)).not.toContain("Answer in haiku.");
  });
});
