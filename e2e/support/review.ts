import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import type { ExportDocument, ImportAnswer } from "../../lib/core/protocol";
import { seedHistory, type SeedHistory } from "../../lib/dev/history";
import type { Workspace } from "./api";

/** A seeded history imported into a workspace, with the generator's facts and the runs' new ids. */
export interface Seeded extends SeedHistory {
  /** Generated run id → the run's id in the workspace. */
  ids: Map<string, string>;
}

/** POST an export document to the workspace's import (as its owner). */
export async function importDoc(request: APIRequestContext, ws: Workspace, doc: ExportDocument): Promise<ImportAnswer> {
  const r = await request.post(`/api/v1/workspaces/${ws.workspace_id}/import`, {
    headers: { authorization: `Bearer ${ws.person_token}` },
    data: doc,
    timeout: 120_000,
  });
  expect([200, 201], await r.text()).toContain(r.status());
  return r.json();
}

export async function seedWorkspace(
  request: APIRequestContext,
  ws: Workspace,
  opts: { runs: number; events: number; seed: number },
): Promise<Seeded> {
  const h = seedHistory(opts);
  const answer = await importDoc(request, ws, h.doc);
  return { ...h, ids: new Map(answer.runs.map((r) => [r.from, r.to])) };
}

/** The runs page `/w/WS/runs`: its filters, count and rows. */
export class RunsPage {
  readonly count: Locator;
  readonly rows: Locator;
  constructor(
    readonly page: Page,
    readonly ws: string,
  ) {
    this.count = page.getByTestId("runs-count");
    this.rows = page.getByTestId("run-row");
  }

  async open(query = ""): Promise<this> {
    const res = await this.page.goto(`/w/${this.ws}/runs${query ? `?${query}` : ""}`);
    expect(res?.status()).toBe(200);
    return this;
  }

  async shown(): Promise<number> {
    return Number(await this.count.getAttribute("data-count"));
  }

  /** Set filters through the form (select options by their label, text fields by value) and apply. */
  async filter(f: { q?: string; selects?: Record<string, string>; fields?: Record<string, string> }): Promise<void> {
    if (f.q !== undefined) await this.page.getByTestId("filter-q").fill(f.q);
    for (const [name, label] of Object.entries(f.selects ?? {}))
      await this.page.getByTestId(`filter-${name}`).selectOption({ label });
    for (const [name, value] of Object.entries(f.fields ?? {}))
      await this.page.getByTestId(`filter-${name}`).fill(value);
    // The form's GET loads a new page: wait for its load (a URL test passes at once on the page before, whose URL also has `/runs?`).
    await Promise.all([this.page.waitForEvent("load"), this.page.getByTestId("filter-apply").click()]);
  }

  /** The ids of every run a search box's text finds (its operators included: `ran:"npm publish"`). */
  async search(q: string): Promise<string[]> {
    await this.filter({ q });
    return (await this.allIds()).sort();
  }

  /** Every run id the view lists, following its pages. */
  async allIds(): Promise<string[]> {
    const ids: string[] = [];
    for (;;) {
      ids.push(...(await this.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run-id")!))));
      const next = this.page.getByTestId("runs-next");
      if (!(await next.count())) return ids;
      await Promise.all([this.page.waitForURL(/cursor=/), next.click()]);
    }
  }
}
