import AxeBuilder from "@axe-core/playwright";
import type { Browser } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import { TestRun } from "./support/runs";

/** The shared view's address as a path (the server's public URL may name another host). */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** A browser with no session at all: what someone outside the workspace has. */
async function stranger(browser: Browser) {
  const context = await browser.newContext();
  return { page: await context.newPage(), close: () => context.close() };
}

test.describe("[SHR1] share links", () => {
  test("a link opens its run without a session, says it is shared, is logged, and answers 404 after revocation and after expiry", async ({
    page,
    browser,
    harness,
    workspace,
    loginAs,
  }) => {
    test.setTimeout(120_000);
    const run = new TestRun(harness, workspace);
    await run.start({
      goal: "Rotate the staging certificates",
      plan: [
        { step_id: "s1", title: "Renew" },
        { step_id: "s2", title: "Deploy" },
      ],
    });
    await run.step("s1", "active");
    await run.status({ verb_phrase: "renewing certificates", progress: 0.5 });
    await run.step("s1", "done");
    await run.finish("succeeded", "Certificates rotated.");

    await loginAs(page, workspace);
    await page.goto(`/w/${workspace.workspace_id}/runs/${run.id}`);
    await page.getByTestId("share-lifetime").selectOption({ label: "1 day" });
    await page.getByTestId("share-create").click();
    const url = pathOf((await page.getByTestId("share-url").textContent())!);
    expect(url).toMatch(/^\/share\?token=[A-Za-z0-9_-]{43}$/);
    await expect(page.getByTestId("share-link")).toHaveAttribute("data-state", "live");

    const out = await stranger(browser);
    const opened = await out.page.goto(url);
    expect(opened!.status()).toBe(200);
    await expect(out.page.getByTestId("shared-banner")).toContainText("A shared view: read-only");
    await expect(out.page.getByTestId("run-page-goal")).toHaveText("Rotate the staging certificates");
    await expect(out.page.getByTestId("run-status")).toHaveText("succeeded");
    // Read-only: no annotation form, no share form, no way into the workspace.
    await expect(out.page.getByTestId("annotation-send")).toHaveCount(0);
    await expect(out.page.getByTestId("share-create")).toHaveCount(0);
    await expect(out.page.locator(`a[href^="/w/"]`)).toHaveCount(0);
    for (const scheme of ["light", "dark"] as const) {
      await out.page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      const results = await new AxeBuilder({ page: out.page }).analyze();
      expect(results.passes.length, "axe really checked the page").toBeGreaterThan(10);
      expect(
        results.violations.map(
          (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
        ),
        `shared view (${scheme})`,
      ).toEqual([]);
    }

    // The workspace sees the open: when and from where.
    await page.reload();
    await expect(page.getByTestId("share-open").first()).toContainText("127.0.0.1");

    await page.getByTestId("share-revoke").click();
    await expect(page.getByTestId("share-link")).toHaveAttribute("data-state", "revoked");
    expect((await out.page.goto(url))!.status()).toBe(404);

    // A link with a few seconds to live opens, then expires into a 404.
    const made = await page.request.post(`/api/v1/runs/${run.id}/shares`, {
      headers: { origin: new URL(page.url()).origin },
      data: { expires_in_seconds: 5 },
    });
    expect(made.status(), await made.text()).toBe(201);
    const short = pathOf(((await made.json()) as { url: string }).url);
    expect((await out.page.goto(short))!.status()).toBe(200);
    await expect
      .poll(async () => (await out.page.goto(short))!.status(), { timeout: 30_000, intervals: [1000] })
      .toBe(404);
    await out.close();
  });
});
