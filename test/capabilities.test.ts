import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverWithWorkspace, post, readEvents, request, runStarted, startRun, type Workspace } from "./support/api";
import { command, receipts } from "./support/harness";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

const run = async (runId: string) => (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;

describe("[RUN2] a harness declares the commands it obeys", () => {
  it("[RUN2] a watch-only run ([]) refuses every command with 409 command_not_supported at /command, and nothing changes", async () => {
    const runId = await startRun(server, ws, { commands: [], goal_from: "harness" });
    expect((await run(runId)).commands).toEqual([]);
    const before = (await readEvents(server, ws, 0)).length;
    for (const [name, text] of [["pause"], ["steer", "look at the logs"], ["cancel"], ["resume"]] as const) {
      const r = await command(server, ws, runId, name, text);
      expect(r.status).toBe(409);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.body).toMatchObject({ code: "command_not_supported", commands: [], errors: [{ pointer: "/command" }] });
      expect(r.body.detail).toContain("watch-only");
    }
    expect(await readEvents(server, ws, 0)).toHaveLength(before);
    expect((await receipts(server, ws, runId)).commands).toEqual([]);
    expect(await run(runId)).toMatchObject({ state: "running", pending: null, commands: [] });
  });

  it("[RUN2] a run that obeys steer and cancel takes those and refuses pause, naming what it obeys", async () => {
    const runId = await startRun(server, ws, { commands: ["steer", "cancel"] });
    const pause = await command(server, ws, runId, "pause");
    expect(pause.status).toBe(409);
    expect(pause.body).toMatchObject({ code: "command_not_supported", commands: ["steer", "cancel"] });
    expect(pause.body.detail).toContain("steer, cancel");
    expect((await run(runId)).pending).toBeNull();
    expect((await command(server, ws, runId, "steer", "use the staging db")).status).toBe(201);
    expect((await command(server, ws, runId, "cancel")).status).toBe(201);
    expect((await run(runId)).pending).toBe("cancelling");
  });

  it("[RUN2] a run that declares nothing obeys every command, as before (commands: null)", async () => {
    const runId = await startRun(server, ws);
    expect((await run(runId)).commands).toBeNull();
    expect((await command(server, ws, runId, "steer", "meanwhile")).status).toBe(201);
    expect((await command(server, ws, runId, "pause")).status).toBe(201);
  });

  it("[RUN2] a declaration with an unknown command, a repeat, or pause without resume is 422 at /commands", async () => {
    for (const commands of [["steer", "fly"], ["steer", "steer"], ["pause", "cancel"], ["resume"]]) {
      const r = await post(server, ws.token, runStarted(ws, undefined, { commands }));
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_failed");
      expect(r.body.errors[0].pointer).toMatch(/^\/commands/);
    }
  });
});
