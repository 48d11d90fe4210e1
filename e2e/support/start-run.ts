import fs from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page } from "@playwright/test";

/** Open "Start a run", fill it, submit; answers the POST's status and body. */
export async function startFromRoom(
  page: Page,
  f: {
    prompt: string;
    repository: string;
    agent?: string;
    commands?: string;
    secrets?: string;
    profile?: string;
    model?: string;
    provider?: string;
    instructions?: string;
  },
) {
  await page.getByTestId("start-run-open").click();
  const form = page.getByTestId("start-run-form");
  await expect(form).toBeVisible();
  await shot(page, "start-run-dialog");
  await expect(page.getByTestId("start-run-prompt")).toBeFocused(); // the dialog opens on its first field
  await page.getByTestId("start-run-prompt").fill(f.prompt);
  await page.getByTestId("start-run-repository").fill(f.repository);
  await expect(page.getByTestId("start-run-base")).toHaveValue("main");
  await expect(page.getByTestId("start-run-agent")).toHaveValue("codex");
  if (f.agent) await page.getByTestId("start-run-agent").selectOption(f.agent);
  await page
    .getByTestId("start-run-profile")
    .getByLabel(new RegExp(`^${f.profile ?? "workspace-write"}`))
    .check();
  if (f.model) await page.getByTestId("start-run-model").selectOption(f.model);
  if (f.provider) await page.getByTestId("start-run-provider").selectOption(f.provider);
  if (f.instructions) await page.getByTestId("start-run-instructions").fill(f.instructions);
  if (f.commands) await page.getByTestId("start-run-commands").fill(f.commands);
  if (f.secrets) await page.getByTestId("start-run-secrets").fill(f.secrets);
  const answer = page.waitForResponse(
    (r) => new URL(r.url()).pathname === "/api/v1/runs" && r.request().method() === "POST",
  );
  await page.getByTestId("start-run-submit").click();
  const res = await answer;
  return {
    status: res.status(),
    body: (await res.json()) as { run_id?: string; events?: { type: string }[]; code?: string; detail?: string },
  };
}

/** With CHIPS_E2E_SCREENSHOTS=1, what renders is kept in docs/screenshots (as e2e/a11y.ui.spec.ts does). */
export async function shot(page: Page, name: string, target?: Locator) {
  if (process.env.CHIPS_E2E_SCREENSHOTS !== "1") return;
  const dir = path.resolve("docs/screenshots");
  fs.mkdirSync(dir, { recursive: true });
  await (target ?? page).screenshot({ path: path.join(dir, `${name}.png`) });
}
