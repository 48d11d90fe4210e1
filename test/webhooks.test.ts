import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, request, startRun, type Workspace } from "./support/api";
import { ask, permission } from "./support/asks";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

/** A local receiver standing in for Slack: records each POST; a path answers 500 `fail` times first. */
function receiver() {
  const got: { path: string; body: any; type: string | undefined }[] = [];
  const failFirst = new Map<string, number>();
  const srv = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d) => (body += d));
    req.on("end", () => {
      const path = req.url ?? "/";
      got.push({ path, body: JSON.parse(body), type: req.headers["content-type"] });
      const left = failFirst.get(path) ?? 0;
      if (left > 0) failFirst.set(path, left - 1);
      res.writeHead(left > 0 ? 500 : 200, { "content-type": "text/plain" }).end(left > 0 ? "busy" : "ok");
    });
  });
  return {
    got,
    failFirst,
    url: () => `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    listen: () => new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r())),
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

/** A port nothing listens on (a server's, closed again). */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let server: TestServer;
const hooks = receiver();
beforeAll(async () => {
  await hooks.listen();
  server = await startTestServer({ rateLimit: 0, webhookRetryMs: 50, webhookAttempts: 4 });
});
afterAll(async () => {
  await server?.close();
  await hooks.close();
});

const owner = (ws: Workspace, method: string, path: string, body?: unknown) =>
  request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/webhooks${path}`, {
    method,
    token: ws.person_token,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const deliveries = async (ws: Workspace, id: string) => (await owner(ws, "GET", `/${id}/deliveries`)).body.deliveries;
const asksOf = async (ws: Workspace, runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.token })).body.asks as any[];

describe("[ASK7] webhooks for new asks", () => {
  it("[ASK7] a new ask is posted as Slack-compatible JSON, retried after failures, each delivery logged; the ask counts as shown", async () => {
    const ws = await newWorkspace(server, { space: "ops", harness: "codex" });
    const secret = "T0001/B0002/very-secret-token";
    const made = await owner(ws, "POST", "", { url: `${hooks.url()}/services/${secret}`, name: "team chat" });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ id: expect.stringMatching(/^whk_/), name: "team chat" });
    const listed = await owner(ws, "GET", "");
    expect(listed.body.webhooks).toEqual([
      expect.objectContaining({ id: made.body.id, name: "team chat", url_hint: `${hooks.url()}/services/…` }),
    ]);
    expect(listed.text).not.toContain("very-secret-token");

    hooks.failFirst.set(`/services/${secret}`, 2);
    const runId = await startRun(server, ws);
    const askId = await ask(
      server,
      ws,
      permission(ws, runId, { summary: "rm -rf <build> & <http://evil.example|click me>", expires_in_seconds: 600 }),
    );
    await until(
      async () => (await deliveries(ws, made.body.id))[0]?.state === "delivered",
      "the delivery went through",
    );
    const [d] = await deliveries(ws, made.body.id);
    expect(d).toMatchObject({ ask_id: askId, run_id: runId, attempts: 3, last_status: 200, last_error: null });
    const posts = hooks.got.filter((g) => g.path === `/services/${secret}`);
    expect(posts).toHaveLength(3);
    expect(new Set(posts.map((p) => JSON.stringify(p.body))).size).toBe(1); // the same body every attempt
    const msg = posts[0].body;
    expect(posts[0].type).toBe("application/json");
    const link = `${server.chips.services.config.publicUrl}/w/${ws.workspace_id}/r/${ws.space_id}#${askId}`;
    expect(msg.text).toBe(
      `codex in #ops asks permission: *Bash* — rm -rf &lt;build&gt; &amp; &lt;http://evil.example|click me&gt; <${link}|Answer in Chips>`,
    );
    expect(msg.blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: expect.stringContaining("asks permission: *Bash*") } },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `<${link}|Answer in Chips> · unanswered in 10 min: the agent’s safe default applies (deny)`,
          },
        ],
      },
    ]);
    await until(async () => (await asksOf(ws, runId))[0].state === "shown", "the ask shown by the webhook");
    expect((await asksOf(ws, runId))[0]).toMatchObject({ shown_via: "webhook" });
    expect((await owner(ws, "GET", "")).body.webhooks[0].deliveries).toEqual({ pending: 0, delivered: 1, failed: 0 });
  });

  it("[ASK7] a webhook that keeps failing is tried its attempts, then logged failed with the last error; a removed one gets nothing more", async () => {
    const ws = await newWorkspace(server);
    const failing = await owner(ws, "POST", "", { url: `${hooks.url()}/down` });
    hooks.failFirst.set("/down", 100);
    const closed = await owner(ws, "POST", "", { url: `http://127.0.0.1:${await closedPort()}/nobody-listens` });
    const runId = await startRun(server, ws);
    const first = await ask(server, ws, permission(ws, runId));
    await until(
      async () =>
        (await deliveries(ws, failing.body.id))[0]?.state === "failed" &&
        (await deliveries(ws, closed.body.id))[0]?.state === "failed",
      "both deliveries given up",
    );
    expect((await deliveries(ws, failing.body.id))[0]).toMatchObject({
      ask_id: first,
      attempts: 4,
      last_status: 500,
      last_error: "HTTP 500",
      delivered_at: null,
    });
    expect((await deliveries(ws, closed.body.id))[0]).toMatchObject({
      attempts: 4,
      last_status: null,
      last_error: "could not connect (ECONNREFUSED)",
    });
    expect(hooks.got.filter((g) => g.path === "/down")).toHaveLength(4);
    expect((await asksOf(ws, runId))[0].state).toBe("asked"); // nobody took it

    expect((await owner(ws, "DELETE", `/${failing.body.id}`)).status).toBe(200);
    expect((await owner(ws, "DELETE", `/${failing.body.id}`)).status).toBe(404);
    await ask(server, ws, permission(ws, runId));
    await until(async () => (await deliveries(ws, closed.body.id)).length === 2, "the second ask went to the other");
    expect(await deliveries(ws, failing.body.id)).toHaveLength(1);
    expect((await owner(ws, "GET", "")).body.webhooks.map((w: { id: string }) => w.id)).toEqual([closed.body.id]);
  });

  it("[ASK7] a webhook takes an http(s) URL; another workspace's webhook is not found", async () => {
    const ws = await newWorkspace(server);
    for (const url of ["ftp://example.com/x", "not a url", `http://${"x".repeat(2000)}.example`]) {
      const r = await owner(ws, "POST", "", { url });
      expect([url.slice(0, 20), r.status, r.body.errors?.[0]?.pointer]).toEqual([url.slice(0, 20), 422, "/url"]);
    }
    const other = await newWorkspace(server);
    const theirs = await owner(other, "POST", "", { url: `${hooks.url()}/theirs` });
    expect((await owner(ws, "GET", `/${theirs.body.id}/deliveries`)).status).toBe(404);
    expect((await owner(ws, "DELETE", `/${theirs.body.id}`)).status).toBe(404);
  });
});
