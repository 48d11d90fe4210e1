import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "./support/fixtures";
import { seedWorkspace } from "./support/review";

test.describe("[ROL1] rollups", () => {
  test("per harness: the table matches the seed's own count, the charts draw with numbers on hover, a CSV downloads; no axe violation light and dark", async ({
    page,
    request,
    workspace,
    loginAs,
  }) => {
    test.setTimeout(180_000);
    const s = await seedWorkspace(request, workspace, { runs: 24, events: 480, seed: 17 });
    await loginAs(page, workspace);
    await page.goto(`/w/${workspace.workspace_id}/runs/rollups?by=harness`);
    const finished = (st: string) => ["succeeded", "failed", "cancelled"].includes(st);
    for (const name of new Set(s.facts.map((f) => f.harness ?? "none"))) {
      const mine = s.facts.filter((f) => (f.harness ?? "none") === name);
      const row = page.locator(`[data-testid=rollup-row][data-label="${name}"]`);
      await expect(row).toHaveAttribute("data-runs", String(mine.length));
      await expect(row).toHaveAttribute("data-finished", String(mine.filter((f) => finished(f.status)).length));
      await expect(row).toHaveAttribute("data-failed", String(mine.filter((f) => f.status === "failed").length));
    }
    await expect(page.getByTestId("rollup-chart")).toHaveCount(5);
    const bar = page.locator('[data-chart="Runs"] .recharts-bar-rectangle').first();
    await bar.hover();
    await expect(page.locator('[data-chart="Runs"] .recharts-tooltip-wrapper')).toContainText("runs");
    const download = page.waitForEvent("download");
    await page.getByTestId("rollup-csv").click();
    expect((await download).suggestedFilename()).toBe("runs-by-harness.csv");
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      const results = await new AxeBuilder({ page }).analyze();
      expect(results.passes.length).toBeGreaterThan(10);
      expect(
        results.violations.map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
        scheme,
      ).toEqual([]);
    }
  });
});
