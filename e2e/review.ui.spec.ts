import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import { Admin, Harness, baseURL, readAdminToken, type Workspace } from "./support/api";
import { Person, TestRun } from "./support/runs";
import { RunsPage, seedWorkspace, type Seeded } from "./support/review";
import type { RunFacts } from "../lib/seed/history";

const SHOTS = path.resolve("docs/screenshots");
const shoot = async (page: Page, name: string) => {
  if (process.env.CHIPS_E2E_SCREENSHOTS !== "1") return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, name), fullPage: false });
};

/** A modest seeded history: enough runs for two pages and every filter, quick to import. */
const HISTORY = { runs: 40, events: 800, seed: 13 };

type Event = Seeded["doc"]["runs"][number]["events"][number];
const eventsOf = (s: Seeded, f: RunFacts): Event[] => s.doc.runs.find((r) => r.run.id === f.id)!.events;

test.describe("[REV1] [REV2] the runs page on a seeded history", () => {
  // One seeded workspace for the whole describe: importing a history is the slow part.
  let workspace: Workspace;
  let s: Seeded;
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(180_000);
    const request = await playwright.request.newContext({ baseURL: baseURL() });
    workspace = await new Admin(request, readAdminToken()).newWorkspace({ workspace: "Acme", owner: "Dana Whitfield" });
    s = await seedWorkspace(request, workspace, HISTORY);
    await request.dispose();
  });

  test("filters and search find exactly the runs the generator made so; views are URLs and can be saved", async ({
    page,
    loginAs,
  }) => {
    test.setTimeout(120_000);
    await loginAs(page, workspace);
    const runs = await new RunsPage(page, workspace.workspace_id).open();
    const mapped = (fs: RunFacts[]) => fs.map((f) => s.ids.get(f.id)!).sort();

    expect(await runs.shown()).toBe(s.facts.length);
    await runs.open("limit=15");
    expect((await runs.allIds()).sort(), "every run once over the pages").toEqual(mapped(s.facts));

    await runs.open();
    await runs.filter({ selects: { status: "failed" } });
    expect(page.url()).toContain("status=failed");
    expect(await runs.shown()).toBe(s.facts.filter((f) => f.status === "failed").length);

    await runs.filter({ selects: { status: "any", harness: "nightly-runner" } });
    expect((await runs.allIds()).sort()).toEqual(mapped(s.facts.filter((f) => f.harness === "nightly-runner")));

    await runs.open();
    await runs.filter({ selects: { change_set: "has one", failed_checks: "some failed" } });
    expect(await runs.shown()).toBe(s.facts.filter((f) => f.hasChangeSet && f.failedChecks > 0).length);

    // Search: accents folded, Japanese and Russian words, each against the runs that got that word.
    for (const [q, marker] of [
      ["zurich", "zürich"],
      ["請求書", "請求書"],
      ["счёт", "счёт"],
    ] as const) {
      await runs.open();
      await runs.filter({ q });
      const want = s.facts.filter((f) => f.markers.includes(marker));
      expect(want.length, marker).toBeGreaterThan(0);
      expect((await runs.allIds()).sort(), q).toEqual(mapped(want));
    }

    // A view is its URL: opened cold, it shows the same; saved, it comes back by name.
    await runs.open("agent=claude&sort=duration&dir=desc");
    const claude = s.facts.filter((f) => f.agent === "claude");
    expect(await runs.shown()).toBe(claude.length);
    const durations = await page
      .getByTestId("run-row")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run-id")));
    expect(durations.length).toBeGreaterThan(0);
    await page.getByTestId("view-name").fill("Claude, longest first");
    await page.getByTestId("view-save").click();
    await expect(page.getByTestId("saved-view")).toHaveText(/Claude, longest first/);
    await runs.open();
    await page.getByTestId("saved-view").getByRole("link").click();
    await expect(page).toHaveURL(/agent=claude/);
    expect(await runs.shown()).toBe(claude.length);
  });

  test("a run page shows each step's duration, plan against what happened, and the commands' times to answer", async ({
    page,
    loginAs,
  }) => {
    await loginAs(page, workspace);
    // A finished run with a skipped step and a step added late, and one with an answered command.
    const marked = s.facts.find(
      (f) => f.status !== "running" && f.status !== "queued" && f.steps.skipped && f.steps.added,
    );
    const commanded = s.facts.find((f) => f.commands > 0);
    expect(marked, "the seed has a run with a skipped and an added step").toBeTruthy();
    expect(commanded, "the seed has a run with a command").toBeTruthy();

    await page.goto(`/w/${workspace.workspace_id}/runs/${s.ids.get(marked!.id)}`);
    await expect(page.getByTestId("run-page")).toBeVisible();
    const ev = eventsOf(s, marked!);
    // Step durations from the generated log itself: first active to its end.
    const steps = ev.filter((e) => e.type === "run.step") as (Event & { step_id: string; state: string })[];
    for (const id of new Set(steps.filter((e) => e.state === "active").map((e) => e.step_id))) {
      const start = steps.find((e) => e.step_id === id && e.state === "active")!;
      const end = steps.find((e) => e.step_id === id && ["done", "failed", "skipped"].includes(e.state));
      if (!end) continue;
      await expect(page.locator(`[data-testid=gantt-step][data-step-id="${id}"]`)).toHaveAttribute(
        "data-duration-ms",
        String(Date.parse(end.ts) - Date.parse(start.ts)),
      );
    }
    const skipped = steps.find((e) => e.state === "skipped")!.step_id;
    await expect(page.locator(`[data-testid=plan-line][data-step-id="${skipped}"]`)).toHaveAttribute(
      "data-marks",
      /skipped/,
    );
    await expect(page.locator(`[data-testid=plan-line][data-step-id="late"]`)).toHaveAttribute("data-marks", /added/);

    await page.goto(`/w/${workspace.workspace_id}/runs/${s.ids.get(commanded!.id)}`);
    const cev = eventsOf(s, commanded!);
    const commands = cev.filter((e) => e.type === "run.command") as (Event & { command_id: string })[];
    await expect(page.getByTestId("audit-row")).toHaveCount(commands.length);
    for (const [i, c] of commands.entries()) {
      const ack = cev.find((e) => e.type === "run.command_acked" && e.command_id === c.command_id)!;
      const delivered = cev.find((e) => e.type === "run.command_delivered" && e.command_id === c.command_id)!;
      const row = page.getByTestId("audit-row").nth(i);
      await expect(row).toHaveAttribute("data-to-answer-ms", String(Date.parse(ack.ts) - Date.parse(c.ts)));
      await expect(row).toHaveAttribute("data-to-delivered-ms", String(Date.parse(delivered.ts) - Date.parse(c.ts)));
      await expect(row).toHaveAttribute("data-receipt", String(ack.result));
    }
  });

  test("runs page, run page and replay: no axe violation, light and dark", async ({ page, loginAs }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 860 });
    await loginAs(page, workspace);
    const rich =
      s.facts.find((f) => f.hasChangeSet && f.commands > 0 && f.status !== "running") ??
      s.facts.find((f) => f.hasChangeSet)!;
    const id = s.ids.get(rich.id)!;
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      for (const [url, shot] of [
        [`/w/${workspace.workspace_id}/runs?limit=12`, `review-runs-${scheme}.png`],
        [`/w/${workspace.workspace_id}/runs/${id}`, `review-run-${scheme}.png`],
        [`/w/${workspace.workspace_id}/runs/${id}/replay`, `review-replay-${scheme}.png`],
        [
          `/w/${workspace.workspace_id}/compare?run=${id}&run=${[...s.ids.values()].find((x) => x !== id)}`,
          `review-compare-${scheme}.png`,
        ],
      ] as const) {
        await page.goto(url);
        await expect(page.locator("main").first()).toBeVisible();
        const results = await new AxeBuilder({ page }).analyze();
        expect(results.passes.length, "axe really checked the page").toBeGreaterThan(10);
        expect(
          results.violations.map(
            (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
          ),
          `${url} (${scheme})`,
        ).toEqual([]);
        await shoot(page, shot);
      }
    }
  });
});

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

test.describe("[REV3] the run page's log in windows", () => {
  test("a run with more statuses than a page shows the first 100; 'show more' reads the rest in order, then offers no more", async ({
    page,
    request,
    workspace,
    loginAs,
  }) => {
    test.setTimeout(120_000);
    // Two runs of ~150–230 events, most of them statuses (lib/seed's seed 3).
    const s = await seedWorkspace(request, workspace, { runs: 2, events: 900, seed: 3 });
    const long = s.doc.runs
      .map((r) => ({ id: r.run.id, statuses: r.events.filter((e) => e.type === "run.status") }))
      .sort((a, b) => b.statuses.length - a.statuses.length)[0];
    expect(long.statuses.length, "the seed has a run of more than one page of statuses").toBeGreaterThan(100);
    await loginAs(page, workspace);
    await page.goto(`/w/${workspace.workspace_id}/runs/${s.ids.get(String(long.id))}`);
    const section = page.getByTestId("log-statuses");
    await expect(section).toHaveAttribute("data-shown", "100");
    await page.getByTestId("log-more-statuses").click();
    await expect(section).toHaveAttribute("data-shown", String(Math.min(200, long.statuses.length)));
    while ((await page.getByTestId("log-more-statuses").count()) > 0) {
      const shown = Number(await section.getAttribute("data-shown"));
      await page.getByTestId("log-more-statuses").click();
      await expect(section).not.toHaveAttribute("data-shown", String(shown));
    }
    await expect(section).toHaveAttribute("data-shown", String(long.statuses.length));
    const phrases = await section.locator("li").evaluateAll((lis) => lis.map((li) => li.textContent ?? ""));
    expect(phrases.map((p, i) => p.includes(String(long.statuses[i].verb_phrase)))).not.toContain(false);
  });
});
