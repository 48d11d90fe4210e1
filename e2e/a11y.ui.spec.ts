import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "./support/fixtures";
import { seedBusyRoom } from "./support/busy-room";
import { Harness } from "./support/api";

const VIEWPORTS = { wide: { width: 1280, height: 860 }, narrow: { width: 390, height: 844 } } as const;
const SHOTS = path.resolve("docs/screenshots");

test.describe("the room at every width, light and dark", () => {
  for (const scheme of ["light", "dark"] as const) {
    for (const [width, viewport] of Object.entries(VIEWPORTS)) {
      test(`axe finds no serious or critical issue: ${scheme}, ${width}; the screenshot is what renders`, async ({
        page,
        request,
        admin,
        loginAs,
      }) => {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
        const ws = await admin.newWorkspace({
          workspace: "Acme",
          space: "release-train",
          harness: "codex",
          owner: "Dana Park",
        });
        await seedBusyRoom(request, ws, new Harness(request, ws));
        const room = await loginAs(page, ws);
        await expect(page.getByTestId("typing-indicator")).toHaveCount(1);
        await room.waitLive();
        const results = await new AxeBuilder({ page }).analyze();
        expect(results.passes.length, "axe really checked the page").toBeGreaterThan(10);
        const bad = results.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        expect(bad).toEqual([]);
        // Keyboard: `/` jumps to the composer, and focus is visible there.
        await page.getByTestId("timeline").focus();
        await page.keyboard.press("/");
        await expect(page.getByTestId("composer")).toBeFocused();
        if (process.env.CHIPS_E2E_SCREENSHOTS === "1") {
          fs.mkdirSync(SHOTS, { recursive: true });
          await page.getByTestId("composer").blur();
          await page.screenshot({ path: path.join(SHOTS, `room-${width}-${scheme}.png`) });
        }
      });
    }
  }
});
