import { test, expect } from "./support/fixtures";
import { linkPath } from "./support/api";
import { RoomPage } from "./support/room-page";

// docs/ROLES.md, "Tokens, invites and roles on the workspace page": the owner's controls, in Chromium.
test("an owner mints a harness token (shown once), sees its last use, revokes it and it stops at once; withdraws an invite; makes a member a viewer and their open room loses its controls", async ({
  browser,
  page,
  workspace,
  loginAs,
}) => {
  await loginAs(page);
  const roomPath = new URL(page.url()).pathname;
  await page.goto(`/w/${workspace.workspace_id}`);

  // A new token for the workspace's harness: shown once, then listed by its id with its last use.
  const harnessRow = page.locator(`[data-testid="harness"][data-harness-id="${workspace.harness_id}"]`);
  const before = await harnessRow
    .getByTestId("token")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-token-id")));
  await harnessRow.getByTestId("harness-new-token").click();
  const minted = page.getByTestId("token-minted");
  await expect(minted).toContainText("shown once");
  const token = /chips_hrn_[\w-]+/.exec((await minted.textContent())!)![0];
  await expect(harnessRow.getByTestId("token")).toHaveCount(before.length + 1);
  const tokenId = (
    await harnessRow.getByTestId("token").evaluateAll((els) => els.map((e) => e.getAttribute("data-token-id")))
  ).find((id) => !before.includes(id))!;
  const me = () => page.request.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
  expect((await me()).status()).toBe(200);
  const row = page.locator(`[data-token-id="${tokenId}"]`);
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText(/last used (?!never)/, { timeout: 1000 });
  }).toPass();
  await expect(minted).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText(token);

  // Revoked from its row: refused at once.
  await row.getByTestId("token-revoke").click();
  await expect(row).toHaveAttribute("data-revoked", "true");
  expect((await me()).status()).toBe(401);

  // An invite made and withdrawn: gone from the list, and its link goes to the login page.
  await page.getByTestId("invite-role").selectOption("viewer");
  await page.getByTestId("invite-create").click();
  const withdrawnUrl = (await page.getByTestId("invite-link").textContent())!;
  const withdrawn = linkPath(withdrawnUrl);
  await expect(page.getByTestId("invite")).toHaveCount(1);
  await page.getByTestId("invite").getByTestId("invite-withdraw").click();
  await expect(page.getByTestId("invite")).toHaveCount(0);
  const late = await browser.newContext();
  const latePage = await late.newPage();
  await latePage.goto(withdrawn);
  await latePage.getByTestId("invite-name").fill("Too Late");
  await latePage.getByTestId("invite-join").click();
  await expect(latePage).toHaveURL(/\/login\?error=invite_used/);
  await late.close();

  // A member with the room open becomes a viewer: their composer and start button go, without a reload.
  await page.getByTestId("invite-role").selectOption("member");
  await page.getByTestId("invite-create").click();
  await expect(page.getByTestId("invite-link")).not.toHaveText(withdrawnUrl); // the new link, not the last one
  const link = linkPath((await page.getByTestId("invite-link").textContent())!);
  const other = await browser.newContext();
  const mpage = await other.newPage();
  await mpage.goto(link);
  await mpage.getByTestId("invite-name").fill("Mo Member");
  await mpage.getByTestId("invite-join").click();
  await expect(mpage).toHaveURL(new RegExp(`/w/${workspace.workspace_id}$`));
  await mpage.goto(roomPath);
  const member = new RoomPage(mpage);
  await member.waitLive();
  await expect(member.composer).toBeVisible();
  await page.reload();
  const mo = page.locator('[data-testid="person"]', { hasText: "Mo Member" });
  await expect(mo).toHaveAttribute("data-role", "member");
  await mo.getByTestId("person-role").selectOption("viewer");
  await expect(mo).toHaveAttribute("data-role", "viewer");
  await expect(member.composer).toHaveCount(0);
  await expect(mpage.getByTestId("start-run-open")).toHaveCount(0);
  await expect(member.status).toHaveAttribute("data-status", "live");
  await other.close();
});
