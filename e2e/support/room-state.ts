import { expect, type Locator, type Page } from "@playwright/test";

/** The room's state panel (docs/PROTOCOL.md §6): intent and outcome, their editor, conflicts and history. */
export class RoomStateView {
  readonly panel: Locator;
  readonly brief: Locator;
  readonly intent: Locator;
  readonly outcome: Locator;
  readonly intentInput: Locator;
  readonly outcomeInput: Locator;
  readonly save: Locator;
  readonly conflict: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId("room-panel");
    this.brief = page.getByTestId("room-brief");
    this.intent = page.getByTestId("room-intent");
    this.outcome = page.getByTestId("room-outcome");
    this.intentInput = page.getByTestId("room-intent-input");
    this.outcomeInput = page.getByTestId("room-outcome-input");
    this.save = page.getByTestId("room-save");
    this.conflict = page.getByTestId("room-conflict");
  }

  async open(): Promise<this> {
    if (!(await this.panel.isVisible())) await this.page.getByTestId("room-state-open").click();
    await expect(this.brief).toBeVisible();
    return this;
  }

  async revision(): Promise<number> {
    return Number(await this.brief.getAttribute("data-revision"));
  }

  async edit(): Promise<void> {
    await this.page.getByTestId("room-edit").click();
    await expect(this.intentInput).toBeVisible();
  }
}
