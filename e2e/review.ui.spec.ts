import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import { axeViolations } from "./support/axe";
import { Admin, baseURL, readAdminToken, type Workspace } from "./support/api";
import { RunsPage, seedWorkspace, type Seeded } from "./support/review";
import type { RunFacts } from "../lib/dev/history";

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
        expect(await axeViolations(page), `${url} (${scheme})`).toEqual([]);
        await shoot(page, shot);
      }
    }
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
    // Two runs of ~150–230 events, most of them statuses (lib/dev's seed 3).
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
