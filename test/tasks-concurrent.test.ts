import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { key, newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/** [TSK3] a start's checks and its queueing are one step: simultaneous starts cannot both pass them. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const base = (ws: Workspace) => `${server.url}/api/v1/spaces/${ws.space_id}/tasks`;
const send = (ws: Workspace, url: string, body: unknown) =>
  request(url, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const make = async (ws: Workspace, title: string, fields: Record<string, unknown>) => {
  const r = await send(ws, base(ws), { title, prompt: "p", repository: "demo", idempotency_key: key(), ...fields });
  expect(r.status, r.text).toBe(201);
  return r.body.task_id as string;
};
const start = (ws: Workspace, id: string) => send(ws, `${base(ws)}/${id}/start`, { idempotency_key: key() });

describe("[TSK3] simultaneous starts are judged one after the other", () => {
  it("[TSK3] two overlapping tasks started at once: exactly one is queued, the other is 409 scope_overlap naming it", async () => {
    const ws = await newWorkspace(server);
    for (let round = 0; round < 3; round++) {
      const a = await make(ws, `A${round}`, { write_scope: [`r${round}/src/**`] });
      const b = await make(ws, `B${round}`, { write_scope: [`r${round}/src/lib/**`] });
      const answers = await Promise.all([start(ws, a), start(ws, b)]);
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses, answers.map((r) => r.text).join("\n")).toEqual([201, 409]);
      const won = answers.find((r) => r.status === 201)!;
      const lost = answers.find((r) => r.status === 409)!;
      expect(lost.body.code).toBe("scope_overlap");
      expect(lost.body.overlaps.map((o: { run_id: string }) => o.run_id)).toEqual([won.body.run_id]);
    }
    const tasks = (await request(base(ws), { token: ws.token })).body.tasks as { status: string }[];
    expect(tasks.filter((t) => t.status === "running")).toHaveLength(3);
  });
});
