import fs from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import type { Workspace } from "./support/api";
import { AskCardView, runAsks } from "./support/asks";
import { importDoc, RunsPage } from "./support/review";
import { axeViolations } from "./support/axe";
import { ChipsClient, type AskOutcome } from "../lib/agents/sdk";

/**
 * Asks where team leads look back (docs/REVIEW.md [ASKR1]–[ASKR7]): an SDK agent asks, a person
 * answers in Chromium (or nobody does), and the run page lists each ask with its answer and
 * time to answer; the replay shows the card at its seq, read-only; compare tallies the runs'
 * asks; an imported copy shows the same section; search finds runs by their asks; rollups give
 * the time to answer per person and per agent, and download it as CSV.
 */

/** No axe violation on the page as it is, light and dark. */
async function accessible(page: Page, what: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    expect(await axeViolations(page), `${what} (${scheme})`).toEqual([]);
  }
}

/** Click an ask's option in the room when its card shows; answers what the agent got. */
async function clickIn(page: Page, pending: Promise<AskOutcome>, text: string, option: string) {
  const card = page.locator('[data-testid="ask-card"]').filter({ hasText: text });
  await card.locator(`[data-testid="ask-option"][data-option-id="${option}"]`).click();
  const o = await pending;
  expect(o.kind).toBe("answered");
  await (o as Extract<AskOutcome, { kind: "answered" }>).apply();
}

/** The asks section of a run page as text, one line per ask, without the ids and seqs an import maps. */
async function section(page: Page) {
  const asks = page.getByTestId("review-ask");
  const out: string[] = [];
  for (const a of await asks.all())
    out.push(
      [
        await a.getAttribute("data-kind"),
        await a.getAttribute("data-end"),
        await a.getAttribute("data-wait-ms"),
        await a.getByTestId("review-ask-what").innerText(),
        await a.getByTestId("review-ask-outcome").innerText(),
      ].join(" | "),
    );
  return out;
}

const exported = async (request: APIRequestContext, ws: Workspace, runId: string) => {
  const r = await request.get(`/api/v1/runs/${runId}/export?format=json`, {
    headers: { authorization: `Bearer ${ws.token}` },
  });
  expect(r.status(), await r.text()).toBe(200);
  return r.json();
};

test("[ASKR1] [ASKR2] [ASKR3] [ASKR4] [ASKR5] [ASKR6] [ASKR7] asks on the run page, in replay, compare, an imported copy, search and rollups", async ({
  page,
  browser,
  request,
  workspace,
  admin,
  loginAs,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const room = await loginAs(page);
  const ws = workspace.workspace_id;
  const client = new ChipsClient({ url: baseURL!, token: workspace.token });
  const ids: Record<string, string> = {};
  try {
    const sub = client.onCommand(() => {});
    await sub.ready();
    // Allowed for the run, then a question answered with an option.
    const clean = await client.startRun({
      spaceId: workspace.space_id,
      goal: "Clean the caches",
      plan: [{ step_id: "clean", title: "Clean" }],
    });
    ids.clean = clean.runId;
    await clickIn(
      room.page,
      clean.ask({ kind: "permission", tool: "Bash", summary: "rm -rf .cache", command: "rm -rf .cache" }),
      "rm -rf .cache",
      "allow_for_run",
    );
    await clickIn(
      room.page,
      clean.ask({
        kind: "question",
        question: "Which database should the tests use?",
        options: [
          { id: "pg", label: "PostgreSQL" },
          { id: "lite", label: "PGlite" },
        ],
      }),
      "Which database",
      "pg",
    );
    await clean.finish("succeeded");
    // Nobody answers in time: the agent's default applies.
    const feed = await client.startRun({ spaceId: workspace.space_id, goal: "Fetch the feed" });
    ids.feed = feed.runId;
    const late = await feed.ask({
      kind: "permission",
      tool: "Bash",
      summary: "curl https://example.com/feed",
      expiresInSeconds: 1,
    });
    expect(late).toMatchObject({ kind: "closed", reason: "expired" });
    await feed.finish("failed");
    // Denied.
    const push = await client.startRun({ spaceId: workspace.space_id, goal: "Publish the branch" });
    ids.push = push.runId;
    await clickIn(
      room.page,
      push.ask({ kind: "permission", tool: "Bash", summary: "git push --force", command: "git push --force" }),
      "git push --force",
      "deny",
    );
    await push.finish("failed");
  } finally {
    client.close();
  }

  // [ASKR1] The run page: each ask, who answered what and after how long, its receipts.
  await page.goto(`/w/${ws}/runs/${ids.clean}`);
  const asks = page.getByTestId("review-ask");
  await expect(asks).toHaveCount(2);
  await expect(page.getByTestId("asks-total")).toHaveAttribute("data-count", "2");
  await expect(page.getByTestId("asks-total")).toHaveAttribute("data-answered", "2");
  const [rm, db] = await runAsks(request, workspace, ids.clean);
  await expect(asks.nth(0)).toHaveAttribute("data-end", "answered");
  await expect(asks.nth(0).getByTestId("review-ask-outcome")).toContainText(
    "Owner answered Allow for this run (covers Bash for the rest of the run)",
  );
  const wait = Number(await asks.nth(0).getAttribute("data-wait-ms"));
  expect(wait).toBeGreaterThan(0);
  await expect(asks.nth(0).getByTestId("review-ask-receipts")).toHaveAttribute("data-receipt", "applied");
  await expect(asks.nth(0).getByTestId("review-ask-receipts")).toContainText("shown via browser");
  await expect(asks.nth(1).getByTestId("review-ask-what")).toHaveText("Which database should the tests use?");
  await expect(asks.nth(1).getByTestId("review-ask-answer")).toHaveText("PostgreSQL");
  // Their place in the run's timeline: a bar each over the time it waited for a person.
  await expect(page.getByTestId("gantt-asks").getByTestId("gantt-ask")).toHaveCount(2);
  await expect(page.getByTestId("gantt-ask").first()).toHaveAttribute("data-ask-id", rm.ask_id);
  expect(Number(await page.getByTestId("gantt-asks").getAttribute("data-waited-ms"))).toBeGreaterThanOrEqual(wait);
  await accessible(page, "the run page's asks");
  const before = await section(page);

  // [ASKR2] Replay at the ask: its card waiting, with nothing to press; at the answer, who answered.
  await Promise.all([page.waitForURL(/\/replay\?seq=/), asks.nth(0).getByTestId("review-ask-replay").click()]);
  const card = new AskCardView(page, rm.ask_id);
  await card.expectState("asked");
  await expect(card.root).toContainText("needs you");
  // History frozen at that seq: not a viewer's "waiting for a member", which nobody could be.
  await expect(card.root.getByTestId("ask-waiting")).toHaveText("Waiting for an answer at this point of the replay.");
  await expect(card.root.getByRole("button")).toHaveCount(0);
  await expect(card.root.getByRole("textbox")).toHaveCount(0);
  const answerSeq = (rm as unknown as { answer: { seq: number } }).answer.seq;
  await page.goto(`/w/${ws}/runs/${ids.clean}/replay?seq=${answerSeq}`);
  await card.expectState("answered");
  await expect(card.outcome).toContainText("Owner answered Allow for this run");
  await expect(card.root.getByRole("button")).toHaveCount(0);
  expect(db.state).toBe("applied");

  // [ASKR3] Compare: each run's asks, answered, denied, expired.
  await page.goto(`/w/${ws}/compare?run=${ids.clean}&run=${ids.feed}&run=${ids.push}`);
  const row = (key: string) => page.locator(`[data-testid="compare-ask-row"][data-row="${key}"] td`);
  await expect(row("count")).toHaveText(["2", "1", "1"]);
  await expect(row("answered")).toHaveText(["2", "0", "1"]);
  await expect(row("denied")).toHaveText(["0", "0", "1"]);
  await expect(row("expired")).toHaveText(["0", "1", "0"]);
  await expect(row("p50").nth(1)).toHaveText("—");

  // [ASKR5] Search by what was asked and how it ended.
  const runs = await new RunsPage(page, ws).open();
  expect(await runs.search("asked:rm")).toEqual([ids.clean]);
  expect(await runs.search('asked:"git push"')).toEqual([ids.push]);
  expect(await runs.search("denied:ask")).toEqual([ids.push]);
  expect(await runs.search("expired:ask")).toEqual([ids.feed]);
  expect(await runs.search("ask:question")).toEqual([ids.clean]);

  // [ASKR6] Rollups: time to answer per person and per agent.
  await page.goto(`/w/${ws}/runs/rollups`);
  const person = page.locator('[data-testid="ask-rollup"][data-by="person"]');
  const owner = person.locator(`[data-testid="ask-rollup-row"][data-key="${workspace.person_id}"]`);
  await expect(owner).toHaveAttribute("data-count", "3");
  await expect(owner).toHaveAttribute("data-answered", "3");
  expect(Number(await owner.getAttribute("data-p50-ms"))).toBeGreaterThan(0);
  const nobody = person.locator('[data-testid="ask-rollup-row"][data-key=""]');
  await expect(nobody).toHaveAttribute("data-expired", "1");
  await expect(nobody).toContainText("nobody (unanswered)");
  await expect(page.locator('[data-testid="ask-rollup"][data-by="agent"] [data-testid="ask-rollup-row"]')).toHaveCount(
    1,
  );
  await accessible(page, "rollups with time to answer");
  // [ASKR7] The same figures as a CSV download beside the runs' one: the owner's line is the table's row.
  const download = page.waitForEvent("download");
  await page.locator('[data-testid="ask-rollup-csv"][data-by="person"]').click();
  const csv = await download;
  expect(csv.suggestedFilename()).toBe("asks-by-person.csv");
  const lines = fs.readFileSync((await csv.path())!, "utf8").split("\r\n");
  expect(lines[0]).toBe("person,key,asks,answered,denied,expired,withdrawn,waiting,expired_share,p50_ms,p90_ms");
  const mine = lines.find((l) => l.split(",")[1] === workspace.person_id)!.split(",");
  expect([mine[2], mine[3], mine[9], mine[10]]).toEqual([
    "3",
    "3",
    await owner.getAttribute("data-p50-ms"),
    await owner.getAttribute("data-p90-ms"),
  ]);

  // [ASKR4] The run exported and imported into another workspace: the same asks section.
  const other = await admin.newWorkspace({ owner: "Owner" });
  const answer = await importDoc(request, other, await exported(request, workspace, ids.clean));
  const copy = await loginAs(await browser.newContext(), other);
  await copy.page.goto(`/w/${other.workspace_id}/runs/${answer.runs[0].to}`);
  await expect(copy.page.getByTestId("review-ask")).toHaveCount(2);
  expect(await section(copy.page)).toEqual(before);
  await copy.page.context().close();
});
