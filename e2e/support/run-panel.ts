import type { Locator, Page } from "@playwright/test";

/** A run panel ([UI1], [UI6]): its hooks, dots and buttons. */
export class RunPanelView {
  readonly root: Locator;
  readonly dots: Locator;
  readonly goal: Locator;
  constructor(
    readonly page: Page,
    readonly runId: string,
  ) {
    this.root = page.locator(`section[data-run-id="${runId}"]`);
    this.dots = this.root.locator("[data-step-id]");
    this.goal = this.root.getByTestId("run-goal");
  }

  dotStates(): Promise<string[]> {
    return this.dots.evaluateAll((els) => els.map((e) => e.getAttribute("data-state") ?? ""));
  }
  button(name: "run-steer" | "run-pause" | "run-resume" | "run-cancel" | "run-force-finish"): Locator {
    return this.root.getByTestId(name);
  }
  receipt(commandId: string): Locator {
    return this.root.locator(`[data-command-id="${commandId}"]`);
  }
}

/** The typing indicator of one run ([UI2], [UI6]). */
export class TypingIndicatorView {
  readonly root: Locator;
  readonly verb: Locator;
  readonly progress: Locator;
  readonly eta: Locator;
  constructor(page: Page, runId: string) {
    this.root = page.locator(`[data-testid="typing-indicator"][data-run-id="${runId}"]`);
    this.verb = this.root.getByTestId("typing-verb-phrase");
    this.progress = this.root.getByTestId("typing-progress");
    this.eta = this.root.getByTestId("typing-eta");
  }
  async etaSeconds(): Promise<number> {
    return Number(await this.eta.getAttribute("data-seconds"));
  }
}

/** How many times `text` is on the page, hidden text included (the goal placement rules of [UI3]). */
export function occurrences(page: Page, text: string): Promise<number> {
  return page.evaluate((t) => document.body.textContent!.split(t).length - 1, text);
}
