import { expect, type Locator, type Page } from "@playwright/test";

type FeedStatus = "connecting" | "live" | "reconnecting" | "error";

/** The live room page `/w/WS/r/SPC`: its timeline, feed status and composer. */
export class RoomPage {
  readonly timeline: Locator;
  /** Timeline entries that are rendered now (the timeline is virtualized). */
  readonly items: Locator;
  readonly status: Locator;
  readonly composer: Locator;

  constructor(readonly page: Page) {
    this.timeline = page.getByTestId("timeline");
    this.items = this.timeline.locator("[data-seq]");
    this.status = page.getByTestId("feed-status");
    this.composer = page.getByTestId("composer");
  }

  /** Open a one-time login link (a path); it must land on the room, logged in and live. */
  async open(link: string): Promise<this> {
    const res = await this.page.goto(link);
    expect(res?.status(), `login link ${link}`).toBe(200);
    expect(new URL(this.page.url()).searchParams.has("login"), "the secret is dropped from the URL").toBe(false);
    await this.waitLive();
    return this;
  }

  async waitLive(): Promise<void> {
    await this.waitStatus("live");
  }

  async waitStatus(status: FeedStatus, timeout?: number): Promise<void> {
    await expect(this.status).toHaveAttribute("data-status", status, { timeout });
  }

  /**
   * The seqs of every timeline entry, in the order the timeline shows them. The timeline
   * renders only the rows near its viewport, so this scrolls it top to bottom, reading each
   * row's index and seq, then scrolls back (to the bottom when it was there). A row never
   * rendered shows as -1.
   */
  async timelineSeqs(): Promise<number[]> {
    return this.timeline.evaluate(async (el) => {
      const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const seqAt = new Map<number, number>();
      const read = () => {
        for (const row of el.querySelectorAll<HTMLElement>("[data-index]")) {
          const entry = row.querySelector<HTMLElement>("[data-seq]");
          seqAt.set(Number(row.dataset.index), entry ? Number(entry.dataset.seq) : Number.NaN);
        }
      };
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
      const was = el.scrollTop;
      for (let top = 0; ; top += Math.max(20, Math.floor(el.clientHeight / 2))) {
        el.scrollTop = top;
        await frames();
        read();
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) break;
      }
      el.scrollTop = atBottom ? el.scrollHeight : was;
      await frames();
      const n = seqAt.size ? Math.max(...seqAt.keys()) + 1 : 0;
      return Array.from({ length: n }, (_, i) => seqAt.get(i) ?? -1);
    });
  }

  /** Wait until the timeline shows exactly these seqs, in this order. */
  async expectSeqs(seqs: number[], timeout = 30_000): Promise<void> {
    await expect.poll(() => this.timelineSeqs(), { timeout }).toEqual(seqs);
  }

  /** Type into the composer and press Enter; the message shows up in the timeline. */
  async send(text: string): Promise<void> {
    await this.composer.fill(text);
    await this.composer.press("Enter");
    await expect(this.composer).toHaveValue("");
    await expect(this.items.filter({ hasText: text })).toHaveCount(1);
  }
}
