import http from "node:http";
import type { AddressInfo } from "node:net";
import { test, expect } from "./support/fixtures";
import { askOn, startRun } from "./support/asks";

test("[ASK7] an owner adds a webhook on the workspace page; a new ask reaches a real HTTP receiver, retried once, and the page logs it", async ({
  page,
  workspace,
  harness,
  admin,
}) => {
  // The receiver: a real HTTP server that is busy the first time.
  const got: { text: string }[] = [];
  let busy = 1;
  const srv = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d) => (body += d));
    req.on("end", () => {
      got.push(JSON.parse(body));
      res.writeHead(busy-- > 0 ? 503 : 200).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  try {
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/services/T1/B2/secret-part`;
    await page.goto(await admin.loginLink(workspace));
    await page.goto(`/w/${workspace.workspace_id}`);
    const panel = page.getByTestId("webhooks-panel");
    await panel.getByTestId("webhook-url").fill(url);
    await panel.getByTestId("webhook-name").fill("team chat");
    await panel.getByTestId("webhook-add").click();
    const row = panel.locator("[data-webhook-id]");
    await expect(row).toContainText("team chat");
    await expect(row).not.toContainText("secret-part");

    const runId = await startRun(harness, "Ship the fix");
    await askOn(harness, runId, { summary: "git push --force-with-lease" });
    await expect.poll(() => got.length, { timeout: 20_000 }).toBe(2);
    expect(got[0].text).toContain("asks permission: *Bash* — git push --force-with-lease");
    await expect(row.getByTestId("webhook-counts")).toContainText("1 delivered, 0 trying, 0 failed");
    await row.getByTestId("webhook-deliveries").click();
    const log = row.getByTestId("webhook-log").locator("tbody tr");
    await expect(log).toHaveCount(1);
    await expect(log).toHaveAttribute("data-delivery-state", "delivered");
    await expect(log).toHaveAttribute("data-attempts", "2");
  } finally {
    await new Promise<void>((r) => srv.close(() => r()));
  }
});
