import type { Page } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import { Harness } from "./support/api";
import { Person, TestRun } from "./support/runs";

/**
 * The review pages of runs a harness posts as the test goes ([RPL1] replay, [ANN1]
 * annotations, [CMP1] compare): what they show against what the live room showed. The
 * seeded history's pages are review.ui.spec.ts.
 */

/** What the room shows of a run at one moment: its panel, receipts, typing indicator, and the timeline. */
async function roomMoment(page: Page, runId: string) {
  return page.evaluate((id) => {
    const panel = document.querySelector(`section[data-run-id="${id}"]`)!;
    const typing = [...document.querySelectorAll("[data-testid=typing-indicator]")].map((t) => ({
      run: t.getAttribute("data-run-id"),
      verb: t.querySelector("[data-testid=typing-verb-phrase]")?.textContent,
      progress: t.querySelector("[data-testid=typing-progress]")?.getAttribute("aria-valuenow") ?? null,
      eta: Number(t.querySelector("[data-testid=typing-eta]")?.getAttribute("data-seconds") ?? -1),
    }));
    return {
      state: panel.getAttribute("data-run-state"),
      pending: panel.getAttribute("data-pending"),
      chip: panel.querySelector("[data-testid=run-state]")?.textContent,
      plan: panel.querySelector("ol")?.getAttribute("aria-label") ?? null,
      dots: [...panel.querySelectorAll("[data-step-id]")].map(
        (d) => `${d.getAttribute("data-step-id")}:${d.getAttribute("data-state")}:${d.getAttribute("aria-label")}`,
      ),
      receipts: [...panel.querySelectorAll("[data-command-id]")].map(
        (r) => `${r.getAttribute("data-receipt")}:${r.textContent}`,
      ),
      typing,
      // Each item's text without the buttons (a person in the live room has them; a replay has none).
      items: [...document.querySelectorAll("[data-testid=timeline] [data-seq]")].map((i) => {
        const copy = i.cloneNode(true) as HTMLElement;
        copy.querySelectorAll("button, form").forEach((b) => b.remove());
        return `${i.getAttribute("data-seq")}:${(copy.textContent ?? "").replace(/\s+/g, " ").trim()}`;
      }),
    };
  }, runId);
}

test.describe("[RPL1] replay", () => {
  test("replay at a seq draws the dots, typing indicator and receipts as the live room showed them at that seq", async ({
    page,
    request,
    workspace,
    loginAs,
  }) => {
    test.setTimeout(120_000);
    const harness = new Harness(request, workspace);
    const person = new Person(request, workspace);
    const room = await loginAs(page, workspace);
    const run = new TestRun(harness, workspace);
    await run.start({
      goal: "Reconcile the ledger",
      plan: [
        { step_id: "read", title: "Read the ledger" },
        { step_id: "fix", title: "Fix the totals" },
        { step_id: "mail", title: "Email Dana" },
      ],
    });
    await run.step("read", "active");
    await run.status({ verb_phrase: "Reading ledger.csv…", progress: 0.2, estimate_seconds: 90 });
    await harness.post(harness.message("Found two rows out of balance."));
    const steer = await person.command(run.id, "steer", "Check March too");
    await run.ack(steer.command_id);
    await run.step("read", "done");
    await run.step("fix", "active");
    const [status] = await run.status({ verb_phrase: "Fixing the totals…", progress: 0.55, estimate_seconds: 40 });
    // The live room at that seq.
    await expect(page.getByTestId("typing-verb-phrase")).toHaveText("Fixing the totals…");
    await expect(page.locator(`[data-command-id="${steer.command_id}"]`)).toHaveAttribute("data-receipt", "applied");
    const live = await roomMoment(page, run.id);
    expect(live.dots).toHaveLength(3);
    await room.waitLive();

    // The run goes on and ends.
    const pause = await person.command(run.id, "pause");
    await run.ack(pause.command_id, "rejected");
    await run.step("fix", "done");
    await run.step("mail", "skipped");
    await run.finish("succeeded", "Balanced.");
    await expect(page.locator(`section[data-run-id="${run.id}"]`)).toHaveAttribute("data-run-state", "finished");

    await page.goto(`/w/${workspace.workspace_id}/runs/${run.id}/replay?seq=${status.seq}`);
    await expect(page.getByTestId("replay")).toHaveAttribute("data-seq", String(status.seq));
    const replay = await roomMoment(page, run.id);
    // The countdown live had run on for the moment it took to read it; replay shows it as of the status.
    expect(replay.typing[0].eta).toBe(40);
    expect(live.typing[0].eta).toBeGreaterThanOrEqual(38);
    expect({ ...replay, typing: replay.typing.map((t) => ({ ...t, eta: 0 })) }).toEqual({
      ...live,
      typing: live.typing.map((t) => ({ ...t, eta: 0 })),
    });

    // The scrubber's end is the finished run; a step back is the run as it was before.
    await page
      .getByTestId("replay-scrubber")
      .fill(String(Number(await page.getByTestId("replay-scrubber").getAttribute("max"))));
    await expect(page.locator(`section[data-run-id="${run.id}"]`)).toHaveAttribute("data-run-state", "finished");
    await expect(page).toHaveURL(/seq=\d+/);
    await expect(page.getByTestId("typing-indicator")).toHaveCount(0);
  });
});

test.describe("[ANN1] annotations", () => {
  test("an annotation made on the run page shows live in the room: the run's verdict and a notice", async ({
    page,
    context,
    request,
    workspace,
    loginAs,
  }) => {
    const harness = new Harness(request, workspace);
    await loginAs(page, workspace);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: "Tidy the mailer", plan: [{ step_id: "a", title: "Read" }] });
    await run.finish("succeeded", "Tidied.");
    await expect(page.locator(`section[data-run-id="${run.id}"]`)).toHaveAttribute("data-run-state", "finished");

    const review = await context.newPage();
    await review.goto(`/w/${workspace.workspace_id}/runs/${run.id}`);
    await review.getByTestId("annotation-verdict").selectOption("approved");
    await review.getByTestId("annotation-comment").fill("Ship it");
    await review.getByTestId("annotation-send").click();
    await expect(review.getByTestId("annotation")).toHaveAttribute("data-verdict", "approved");

    await expect(page.locator(`section[data-run-id="${run.id}"] [data-testid=run-verdict]`)).toHaveAttribute(
      "data-verdict",
      "approved",
    );
    await expect(page.getByTestId("timeline")).toContainText("approved a run: Ship it");
    // And the runs page files it under approved, no longer unreviewed.
    await review.goto(`/w/${workspace.workspace_id}/runs?review=approved`);
    await expect(review.getByTestId("run-row")).toHaveAttribute("data-run-id", run.id);
    await review.goto(`/w/${workspace.workspace_id}/runs?review=unreviewed`);
    await expect(review.getByTestId("runs-count")).toHaveAttribute("data-count", "0");
  });
});

test.describe("[CMP1] compare", () => {
  test("two runs ticked on the runs page compare side by side, steps aligned by id, else by title", async ({
    page,
    request,
    workspace,
    loginAs,
  }) => {
    const harness = new Harness(request, workspace);
    await loginAs(page, workspace);
    const a = new TestRun(harness, workspace);
    await a.start({
      goal: "Balance March",
      plan: [
        { step_id: "read", title: "Read the ledger" },
        { step_id: "fix", title: "Fix the totals" },
      ],
    });
    const b = new TestRun(harness, workspace);
    await b.start({
      goal: "Balance April",
      plan: [
        { step_id: "read", title: "Read the ledger" },
        { step_id: "repair", title: "Fix the totals" },
        { step_id: "mail", title: "Email Dana" },
      ],
    });
    for (const [run, steps] of [
      [a, ["read", "fix"]],
      [b, ["read", "repair", "mail"]],
    ] as const) {
      for (const s of steps) {
        await run.step(s, "active");
        await run.step(s, "done");
      }
      await run.finish("succeeded");
    }
    await page.goto(`/w/${workspace.workspace_id}/runs`);
    for (const id of [a.id, b.id])
      await page.locator(`[data-testid=run-row][data-run-id="${id}"] [data-testid=compare-pick]`).check();
    await Promise.all([page.waitForURL(/\/compare\?/), page.getByTestId("compare-selected").click()]);
    const rows = page.getByTestId("compare-step");
    await expect(rows).toHaveCount(3);
    const row = (title: string) => rows.filter({ has: page.getByRole("rowheader", { name: title, exact: true }) });
    await expect(row("Read the ledger").locator("td")).toHaveText([/done/, /done/]);
    // "fix" and "repair" share a row: the same title.
    await expect(row("Fix the totals").locator("td")).toHaveText([/done/, /done/]);
    await expect(row("Email Dana").locator("td[data-state=absent]")).toHaveCount(1);
    await expect(page.getByTestId("compare-summary")).toContainText("succeeded");
  });
});
