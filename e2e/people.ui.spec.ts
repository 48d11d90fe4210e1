import { test, expect } from "./support/fixtures";
import { baseURL, linkPath } from "./support/api";
import { RoomPage } from "./support/room-page";
import { TestRun } from "./support/runs";

test("an owner invites a viewer: the viewer watches live without controls, the API refuses their commands, and a revoke stops their room at once", async ({
  browser,
  page,
  workspace,
  harness,
  loginAs,
}) => {
  // The owner's room, and the workspace page in a second tab.
  const ownerRoom = await loginAs(page);
  const roomPath = new URL(page.url()).pathname;
  const manage = await page.context().newPage();
  await manage.goto(`/w/${workspace.workspace_id}`);
  await manage.getByTestId("invite-role").selectOption("viewer");
  await manage.getByTestId("invite-create").click();
  const link = linkPath((await manage.getByTestId("invite-link").textContent())!);

  // A second browser opens the invite, gives a name, and opens the room.
  const other = await browser.newContext();
  const vpage = await other.newPage();
  await vpage.goto(link);
  await vpage.getByTestId("invite-name").fill("Vera Viewer");
  await vpage.getByTestId("invite-join").click();
  await expect(vpage).toHaveURL(new RegExp(`/w/${workspace.workspace_id}$`));
  await expect(vpage.getByTestId("new-room-name")).toHaveCount(0);
  await expect(vpage.getByTestId("invite-create")).toHaveCount(0);
  await vpage.goto(roomPath);
  const viewer = new RoomPage(vpage);
  await viewer.waitLive();
  await expect(page.getByTestId("present-people")).toContainText("Vera Viewer");

  // Live, but no controls: no composer, no start button, no run buttons.
  const run = new TestRun(harness, workspace);
  await run.start({ goal: "Watch me", plan: [{ step_id: "a", title: "A" }] });
  await harness.post(harness.message("seen by the viewer"));
  await expect(viewer.timeline).toContainText("seen by the viewer");
  const panel = vpage.locator(`[data-run-id="${run.id}"][data-run-state="running"]`).first();
  await expect(panel).toBeVisible();
  await expect(page.getByTestId("run-pause")).toBeVisible(); // the owner has them
  await expect(vpage.getByTestId("run-pause")).toHaveCount(0);
  await expect(vpage.getByTestId("run-cancel")).toHaveCount(0);
  await expect(vpage.getByTestId("composer")).toHaveCount(0);
  await expect(vpage.getByTestId("start-run-open")).toHaveCount(0);

  // The API refuses the viewer's commands and messages (their session cookie, our own Origin).
  const headers = { origin: baseURL() };
  const cmd = await vpage.request.post(`/api/v1/runs/${run.id}/commands`, {
    headers,
    data: { command: "pause", idempotency_key: "viewer-pause" },
  });
  expect(cmd.status()).toBe(403);
  const msg = await vpage.request.post("/api/v1/events", {
    headers,
    data: { ...harness.message("from a viewer"), actor: undefined },
  });
  expect(msg.status()).toBe(403);

  // The owner revokes them: their open room stops receiving within a second.
  const vera = manage.locator('[data-testid="person"]', { hasText: "Vera Viewer" });
  await manage.reload();
  await vera.getByTestId("person-revoke").click();
  await expect(viewer.status).toHaveAttribute("data-status", "revoked", { timeout: 1000 });
  await harness.post(harness.message("after the revoke"));
  await expect(ownerRoom.timeline).toContainText("after the revoke");
  await expect(viewer.timeline).not.toContainText("after the revoke");
  expect((await vpage.request.get("/api/v1/me")).status()).toBe(401);
  await other.close();
});
