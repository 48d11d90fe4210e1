import { test, expect } from "./support/fixtures";
import { RoomStateView } from "./support/room-state";

test.describe("[ROOM1] a room's intent and outcome, edited by people in two browsers", () => {
  test("[ROOM1] a save shows live in the other browser; a conflicting save shows the other's text and is resolved without loss; the history diffs any two revisions", async ({
    page,
    browser,
    loginAs,
  }) => {
    const dana = await loginAs(page);
    const otherContext = await browser.newContext();
    const sam = await loginAs(otherContext);
    const a = await new RoomStateView(dana.page).open();
    const b = await new RoomStateView(sam.page).open();

    // Dana writes revision 1; Sam's open panel shows it without a reload.
    await a.edit();
    await a.intentInput.fill("Ship the **login page**");
    await a.outcomeInput.fill("The e2e suite is green");
    await a.save.click();
    await expect(a.brief).toHaveAttribute("data-revision", "1");
    await expect(b.brief).toHaveAttribute("data-revision", "1");
    await expect(b.intent.locator("strong")).toHaveText("login page");
    await expect(b.outcome).toHaveText("The e2e suite is green");

    // Both edit revision 1 at once. Dana saves first.
    await a.edit();
    await b.edit();
    await a.intentInput.fill("Ship the **login page**\n\nDana: also the logout button");
    await a.save.click();
    await expect(a.brief).toHaveAttribute("data-revision", "2");
    // Sam is told while still typing, and his save is refused with Dana's text beside his own.
    await expect(sam.page.getByTestId("room-newer")).toContainText("revision 2");
    await b.intentInput.fill("Ship the **login page**\n\nSam: and a password reset");
    await b.save.click();
    await expect(b.conflict).toHaveAttribute("data-revision", "2");
    await expect(b.conflict.getByTestId("room-conflict-theirs")).toContainText("Dana: also the logout button");
    await expect(b.intentInput).toHaveValue(/Sam: and a password reset/);
    await expect(
      b.conflict.locator('[data-change="removed"]').filter({ hasText: "Dana: also the logout button" }),
    ).toHaveCount(1);
    await expect(
      b.conflict.locator('[data-change="added"]').filter({ hasText: "Sam: and a password reset" }),
    ).toHaveCount(1);
    // Sam merges both and saves on top of Dana's revision: nothing is lost.
    await b.intentInput.fill("Ship the **login page**\n\nDana: also the logout button\n\nSam: and a password reset");
    await b.save.click();
    await expect(b.brief).toHaveAttribute("data-revision", "3");
    await expect(a.brief).toHaveAttribute("data-revision", "3");
    await expect(a.intent).toContainText("Dana: also the logout button");
    await expect(a.intent).toContainText("Sam: and a password reset");

    // The history: every revision with its author, and a diff between any two.
    await dana.page.getByTestId("room-history-toggle").click();
    const history = dana.page.getByTestId("room-history");
    await expect(history.getByTestId("room-revision")).toHaveCount(3);
    await history.getByTestId("room-diff-from").selectOption("1");
    await history.getByTestId("room-diff-to").selectOption("3");
    const diff = history.getByTestId("text-diff");
    await expect(diff.locator('[data-change="added"]').filter({ hasText: "Dana: also the logout button" })).toHaveCount(
      1,
    );
    await expect(diff.locator('[data-change="added"]').filter({ hasText: "Sam: and a password reset" })).toHaveCount(1);
    await expect(diff.locator('[data-change="removed"]')).toHaveCount(0);
    await history.getByTestId("room-diff-from").selectOption("3");
    await history.getByTestId("room-diff-to").selectOption("2");
    await expect(diff.locator('[data-change="removed"]').filter({ hasText: "Sam: and a password reset" })).toHaveCount(
      1,
    );
    await otherContext.close();
  });

  test("[DEC1] decisions appear live in the other browser; superseding one moves it to the superseded list there too", async ({
    page,
    browser,
    loginAs,
  }) => {
    const dana = await loginAs(page);
    const otherContext = await browser.newContext();
    const sam = await loginAs(otherContext);
    await new RoomStateView(dana.page).open();
    await new RoomStateView(sam.page).open();
    const record = async (p: typeof page, title: string, text: string) => {
      await p.getByTestId("decision-title-input").fill(title);
      await p.getByTestId("decision-text-input").fill(text);
      await p.getByTestId("decision-record").click();
      await expect(p.getByTestId("decision-form")).toHaveCount(0);
    };
    await dana.page.getByTestId("decision-new").click();
    await record(dana.page, "Use PostgreSQL", "One store for *everything*.");
    const samSees = sam.page.getByTestId("decision").filter({ hasText: "Use PostgreSQL" });
    await expect(samSees).toHaveAttribute("data-status", "active");
    await expect(samSees.getByTestId("decision-meta")).toContainText(/\d/);
    await expect(samSees.locator("em")).toHaveText("everything");

    await samSees.getByTestId("decision-supersede").click();
    await record(sam.page, "Use PostgreSQL 17", "Pinned to 17.");
    const active = dana.page.locator('[data-testid="decision"][data-status="active"]');
    await expect(active).toHaveCount(1);
    await expect(active.getByTestId("decision-title")).toHaveText("Use PostgreSQL 17");
    await expect(active.getByTestId("decision-meta")).toContainText("replaces “Use PostgreSQL”");
    const old = dana.page.locator('[data-testid="decision"][data-status="superseded"]');
    await expect(old).toHaveCount(1);
    await expect(old).toContainText("superseded by “Use PostgreSQL 17”");
    await otherContext.close();
  });
});
