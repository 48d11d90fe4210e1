import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, post, runStarted, readEvents } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe("smoke", () => {
  it("stores an event", async () => {
    const ws = await newWorkspace(server);
    const r = await post(server, ws.token, runStarted(ws));
    expect(r.status).toBe(201);
    expect((await readEvents(server, ws)).map((e) => e.seq)).toEqual([1]);
  });
});
