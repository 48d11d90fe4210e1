import { test, expect } from "./support/fixtures";
import { Admin, Harness, linkPath } from "./support/api";
import { TestRun } from "./support/runs";
import { startOwnServer, type OwnServer } from "./support/own-server";
import { requestFrom, startHaproxy, type ReverseProxy } from "../test/support/reverse-proxy";

/**
 * A share link's opens behind a real HAProxy ([OPS2], docs/OPERATIONS.md): the page is served
 * by the production server (Next.js), which test/reverse-proxy.pg.test.ts does not start. The
 * proxy is trusted as one hop; the reader connects to it from 127.0.0.2.
 */
let own: OwnServer;
let proxy: ReverseProxy;
test.beforeAll(async () => {
  own = await startOwnServer({ CHIPS_TRUSTED_PROXIES: "1" });
  proxy = await startHaproxy(own.baseURL);
});
test.afterAll(async () => {
  await proxy?.stop();
  await own?.stop();
});

test("[OPS2] a share link opened through HAProxy records the reader's address, not the proxy's", async ({
  playwright,
}) => {
  const api = await playwright.request.newContext({ baseURL: own.baseURL });
  const ws = await new Admin(api, own.adminToken).newWorkspace();
  const run = new TestRun(new Harness(api, ws), ws);
  await run.start({ goal: "Read from behind the proxy" });
  const owner = { authorization: `Bearer ${ws.person_token}` };
  const made = await api.post(`/api/v1/runs/${run.id}/shares`, { headers: owner, data: { expires_in_seconds: 3600 } });
  expect(made.status(), await made.text()).toBe(201);
  const opened = await requestFrom("127.0.0.2", proxy.url + linkPath(((await made.json()) as { url: string }).url));
  expect(opened.status).toBe(200);
  expect(opened.text).toContain("Read from behind the proxy");
  const listed = await api.get(`/api/v1/workspaces/${ws.workspace_id}/shares`, { headers: owner });
  const { shares } = (await listed.json()) as { shares: { opens: { address: string | null }[] }[] };
  expect(shares.map((s) => s.opens.map((o) => o.address))).toEqual([["127.0.0.2"]]);
  await api.dispose();
});
