import AxeBuilder from "@axe-core/playwright";
import type { Page, Route } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import { readAdminToken } from "./support/api";
import { AskCardView, askOn, joinAs, runAsks, startRun } from "./support/asks";
import { ChipsClient, type AskOutcome } from "../lib/agents/sdk";

// Asking people ([ASK1]–[ASK6]) in the browser: the card, the buttons, the race, the inbox,
// notifications, and an SDK agent answered from Chromium.

test("[ASK2] two browsers answer the same ask at once: exactly one wins, the other is told who did", async ({
  browser,
  workspace,
  harness,
  loginAs,
  request,
}) => {
  const dana = await loginAs(await browser.newContext());
  const samContext = await browser.newContext();
  const sam = await samContext.newPage();
  await joinAs(request, readAdminToken(), sam, workspace, "member", "Sam");
  await sam.goto(`/w/${workspace.workspace_id}/r/${workspace.space_id}`);
  await expect(sam.getByTestId("feed-status")).toHaveAttribute("data-status", "live");

  const runId = await startRun(harness, "Tidy the build");
  const asked = await askOn(harness, runId);
  const askId = asked.ask_id as string;
  const cards = [new AskCardView(dana.page, askId), new AskCardView(sam, askId)];
  for (const c of cards) await expect(c.option("allow")).toBeEnabled();
  // Both press at once: Dana allows, Sam denies. Each browser's answer is held until both are on
  // the wire, so neither card can have closed before the other's press (which a loaded machine
  // otherwise allows: the second click then waits for a button that is gone).
  const held: Route[] = [];
  let bothSent!: () => void;
  const sent = new Promise<void>((resolve) => (bothSent = resolve));
  for (const p of [dana.page, sam])
    await p.route(`**/api/v1/runs/${runId}/asks/${askId}/answer`, (route) => {
      held.push(route);
      if (held.length === 2) bothSent();
    });
  await Promise.all([cards[0].option("allow").click(), cards[1].option("deny").click()]);
  await sent;
  await Promise.all(held.map((r) => r.continue()));

  await expect.poll(async () => (await runAsks(request, workspace, runId))[0].state).toBe("answered");
  const [stored] = await runAsks(request, workspace, runId);
  const danaWon = stored.answer!.person_id === workspace.person_id;
  const [winner, loser] = danaWon ? [cards[0], cards[1]] : [cards[1], cards[0]];
  const [name, label] = danaWon ? ["Owner", "Allow"] : ["Sam", "Deny"];
  await expect(loser.refusal).toContainText(new RegExp(`^${name} answered ${label} at \\d\\d:\\d\\d`));
  await expect(winner.refusal).toHaveCount(0);
  for (const c of cards) {
    await expect(c.outcome).toContainText(`${name} answered ${label}`);
    await c.expectState("answered");
    await expect(c.root.getByTestId("ask-option")).toHaveCount(0);
  }
  const answers = (await harness.events()).filter((e) => e.type === "run.answered" && e.ask_id === askId);
  expect(answers).toHaveLength(1);
  await samContext.close();
});

test("[ASK4] a waiting run says so at a glance (panel and rail, since when); the card is keyboard-operable and named", async ({
  page,
  harness,
  loginAs,
}) => {
  const room = await loginAs(page);
  const runId = await startRun(harness, "Deploy the docs");
  const asked = await askOn(harness, runId, {
    tool: "Bash",
    summary: "npm run deploy:docs",
    command: "npm run deploy:docs",
    paths: ["docs/"],
  });
  const panel = page.locator(`section[data-run-id="${runId}"]`);
  await expect(panel.getByTestId("run-needs-you")).toHaveAttribute("data-since", asked.ts as string);
  await expect(panel.getByTestId("run-needs-you")).toContainText(/needs you · since \d\d:\d\d/);
  const rail = page.getByRole("complementary", { name: "Active runs" });
  await expect(rail.getByTestId("run-needs-you")).toBeVisible();

  // Named for screen readers; reached and pressed with the keyboard alone.
  const card = page.getByRole("region", { name: /asks permission: Bash: npm run deploy:docs/ });
  await expect(card).toBeVisible();
  const allow = card.getByRole("button", { name: "Allow", exact: true });
  await allow.focus();
  await expect(allow).toBeFocused();
  await page.keyboard.press("Enter");
  const view = new AskCardView(page, asked.ask_id as string);
  await view.expectState("answered");
  await expect(view.outcome).toContainText(/Owner answered Allow at \d\d:\d\d( [AP]M)? \(after \d+ s\)/);
  await expect(panel.getByTestId("run-needs-you")).toHaveCount(0);
  await expect(room.status).toHaveAttribute("data-status", "live");
});

test("[ASK3] a viewer sees the ask and who answered, with no buttons", async ({
  browser,
  workspace,
  harness,
  request,
}) => {
  const ctx = await browser.newContext();
  const viewer = await ctx.newPage();
  await joinAs(request, readAdminToken(), viewer, workspace, "viewer", "Vic");
  await viewer.goto(`/w/${workspace.workspace_id}/r/${workspace.space_id}`);
  await expect(viewer.getByTestId("feed-status")).toHaveAttribute("data-status", "live");
  const runId = await startRun(harness, "Look but do not touch");
  const asked = await askOn(harness, runId, {
    kind: "question",
    question: "Which branch?",
    tool: undefined,
    summary: undefined,
    command: undefined,
    options: [{ id: "main", label: "main" }],
    free_text: true,
  });
  const card = new AskCardView(viewer, asked.ask_id as string);
  await expect(card.root).toContainText("Which branch?");
  await expect(card.root.getByTestId("ask-option")).toHaveCount(0);
  await expect(card.root.getByTestId("ask-text")).toHaveCount(0);
  await expect(card.root.getByTestId("ask-waiting")).toHaveText("Waiting for a member to answer (viewers watch).");
  await ctx.close();
});

test("[ASK4] the inbox lists what waits across two rooms, oldest first, answers in place and takes new asks live", async ({
  page,
  workspace,
  harness,
  loginAs,
  request,
}) => {
  await loginAs(page);
  const made = await request.post(`/api/v1/workspaces/${workspace.workspace_id}/spaces`, {
    headers: { authorization: `Bearer ${workspace.person_token}` },
    data: { name: "release" },
  });
  const release = ((await made.json()) as { id: string }).id;
  const a = await startRun(harness, "Fix the flaky test");
  const b = await startRun(harness, "Cut the release", release);
  const first = await askOn(harness, a, { summary: "rm -rf node_modules/.cache" });
  const second = await askOn(harness, b, {
    kind: "question",
    question: "Tag it v2.0 or v2.0.0?",
    tool: undefined,
    summary: undefined,
    command: undefined,
    options: [
      { id: "short", label: "v2.0" },
      { id: "long", label: "v2.0.0" },
    ],
    free_text: true,
  });
  await page.goto(`/w/${workspace.workspace_id}/inbox`);
  const list = page.getByRole("list", { name: "Asks" });
  await expect(list.locator("[data-inbox-ask]")).toHaveCount(2);
  expect(
    await list.locator("[data-inbox-ask]").evaluateAll((ls) => ls.map((l) => l.getAttribute("data-inbox-ask"))),
  ).toEqual([first.ask_id, second.ask_id]);
  await expect(page.getByTestId("inbox-room")).toHaveText([
    /# general · Fix the flaky test/,
    /# release · Cut the release/,
  ]);
  await expect(page.getByTestId("inbox-count")).toHaveAttribute("data-count", "2");

  // Answered in place: the question by its text box, the permission by Deny with a note.
  const q = new AskCardView(page, second.ask_id as string);
  await q.root.getByTestId("ask-text").fill("v2.0.0, like the others");
  await q.root.getByTestId("ask-text").press("Enter");
  await q.expectState("answered");
  await expect(q.outcome).toContainText("Owner answered “v2.0.0, like the others”");
  const p = new AskCardView(page, first.ask_id as string);
  await p.root.getByTestId("ask-note").fill("the cache is shared");
  await p.option("deny").click();
  await expect(p.outcome).toContainText("Owner answered Deny");
  await expect(p.outcome).toContainText("the cache is shared");
  await expect(page.getByTestId("inbox-count")).toHaveAttribute("data-count", "0");

  // A new ask arrives while the inbox is open.
  const third = await askOn(harness, b, { summary: "git push --tags" });
  await expect(new AskCardView(page, third.ask_id as string).option("allow")).toBeVisible();
  await expect(page.getByTestId("inbox-count")).toHaveAttribute("data-count", "1");
});

test("[ASK4] notifications: permission asked for by a button, never on load; then a system notification for each new ask", async ({
  browser,
  workspace,
  harness,
  admin,
}) => {
  // A browser that has not decided: the button shows, nothing is requested on load.
  // The headless browser answers "denied" by itself; here it stands undecided until asked, and counts the asks.
  const undecided = await browser.newContext();
  await undecided.addInitScript(() => {
    const w = window as unknown as { __requested: number };
    w.__requested = 0;
    let state: NotificationPermission = "default";
    Object.defineProperty(Notification, "permission", { get: () => state });
    const query = navigator.permissions.query.bind(navigator.permissions);
    navigator.permissions.query = (d) =>
      d.name === "notifications"
        ? Promise.resolve({ state: state === "default" ? "prompt" : state } as PermissionStatus)
        : query(d);
    Notification.requestPermission = async () => {
      w.__requested++;
      state = "granted";
      return state;
    };
  });
  const u = await undecided.newPage();
  await u.goto(await admin.loginLink(workspace));
  await expect(u.getByTestId("notify-enable")).toBeVisible();
  expect(await u.evaluate(() => (window as unknown as { __requested: number }).__requested)).toBe(0);
  await u.getByTestId("notify-enable").click();
  await expect.poll(() => u.evaluate(() => (window as unknown as { __requested: number }).__requested)).toBe(1);
  await expect(u.getByTestId("notify-enable")).toHaveCount(0); // asked once: the button goes
  await undecided.close();

  // A browser that allowed them: each new ask of the workspace is a system notification, on any of its pages.
  const allowed = await browser.newContext();
  await allowed.grantPermissions(["notifications"]);
  await allowed.addInitScript(() => {
    const shown: { title: string; body?: string; tag?: string }[] = [];
    (window as unknown as { __notifications: typeof shown }).__notifications = shown;
    const Real = window.Notification;
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push({ title, body: options?.body, tag: options?.tag });
      }
    }
    window.Notification = Recorded as typeof Notification;
  });
  const page = await allowed.newPage();
  await page.goto(await admin.loginLink(workspace));
  await page.goto(`/w/${workspace.workspace_id}/runs`); // not the room: any page of the workspace
  await expect(page.getByTestId("ask-watch")).toHaveAttribute("data-live", "true");
  await expect(page.getByTestId("notify-enable")).toHaveCount(0);
  const runId = await startRun(harness, "Rotate the keys");
  const asked = await askOn(harness, runId, { tool: "Edit", summary: "Edit .env.production" });
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __notifications: unknown[] }).__notifications))
    .toEqual([{ title: "An agent asks permission: Edit", body: "Edit .env.production", tag: asked.ask_id }]);
  await allowed.close();
});

test("[ASK4] an SDK agent asks, a person clicks Allow in Chromium, the agent gets allow and reports it applied", async ({
  page,
  workspace,
  loginAs,
  baseURL,
}) => {
  await loginAs(page);
  const client = new ChipsClient({ url: baseURL!, token: workspace.token });
  try {
    const sub = client.onCommand(() => {});
    await sub.ready();
    const run = await client.startRun({ spaceId: workspace.space_id, goal: "Clean the caches" });
    const pending = run.ask({ kind: "permission", tool: "Bash", summary: "rm -rf .cache", command: "rm -rf .cache" });
    const card = page.locator('[data-testid="ask-card"]').filter({ hasText: "rm -rf .cache" });
    await card.locator('[data-testid="ask-option"][data-option-id="allow"]').click();
    const o = (await pending) as Extract<AskOutcome, { kind: "answered" }>;
    expect(o.answer).toMatchObject({ decision: "allow", person_id: workspace.person_id });
    await o.apply();
    await expect(card.getByTestId("ask-outcome")).toHaveAttribute("data-receipt", "applied");
    await expect(card.getByTestId("ask-outcome")).toContainText("applied by the agent");
  } finally {
    client.close();
  }
});

async function seriousIssues(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.passes.length, "axe really checked the page").toBeGreaterThan(10);
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

for (const scheme of ["light", "dark"] as const)
  test(`[ASK4] axe finds no serious or critical issue on a room with waiting asks, nor on the inbox: ${scheme}`, async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    const runId = await startRun(harness, "Release 2.0");
    await askOn(harness, runId, { expires_in_seconds: 3600, paths: ["dist/", "build/"] });
    await askOn(harness, runId, {
      kind: "question",
      question: "Which changelog format?",
      tool: undefined,
      summary: undefined,
      command: undefined,
      options: [
        { id: "keep", label: "Keep a Changelog", description: "the usual" },
        { id: "free", label: "Free-form" },
      ],
      free_text: true,
    });
    const room = await loginAs(page);
    await expect(page.getByTestId("ask-card")).toHaveCount(2);
    await room.waitLive();
    expect(await seriousIssues(page)).toEqual([]);
    await page.goto(`/w/${workspace.workspace_id}/inbox`);
    await expect(page.getByTestId("ask-card")).toHaveCount(2);
    expect(await seriousIssues(page)).toEqual([]);
  });
