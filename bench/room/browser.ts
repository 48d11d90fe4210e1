import fs from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { longTaskBreakdown, TRACE_CATEGORIES } from "./trace";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launch(): Promise<Browser> {
  const systemChromium = "/usr/bin/chromium";
  return chromium.launch({
    executablePath: fs.existsSync(systemChromium) ? systemChromium : undefined,
    args: CHROMIUM_ARGS,
    headless: true,
  });
}

export interface Visit {
  /** ms from navigation start (the login link's request; its 303 included) in the page's own clock. */
  ttfb: number;
  fcp: number;
  domContentLoaded: number;
  /** The newest event's `[data-seq]` element inserted into the DOM. */
  newestInDom: number;
  /** …first seen inside the timeline's visible box (checked every animation frame). */
  newestVisible: number;
  /** …the next animation frame after that: the frame showing it has been produced (upper bound of paint). */
  newestPainted: number;
  /** The socket joined (header status `live`). */
  live: number;
  redirects: number;
  loadLongest: number;
  /** Scroll-back: older events the timeline loaded over the socket's `history`, and the wall time. */
  olderLoaded: number;
  historyPages: number;
  scrolledSeqs: number;
  scrollMs: number;
  /** Long tasks that started during the scroll-back. */
  scrollLongest: number;
  scrollOver100: number;
  scrollLongTasks: number;
  /** Long tasks starting within 300 ms after a history page arrived (the prepend), and the rest (plain scrolling). */
  prependLongest: number;
  prependOver100: number;
  otherLongest: number;
  otherOver100: number;
  reachedTarget: boolean;
  /** With `traced`: where the long tasks of the load and of the scroll-back went (a Chromium trace). */
  traces?: { load: string; scroll: string };
}

/**
 * Installed before any page script: long tasks, every `[data-seq]` inserted, and the
 * newest's appearance. Plain JS text: a transpiled function could carry helpers (esbuild's
 * `__name`) that do not exist in the page.
 */
const PROBE = `
(() => {
  const newest = __NEWEST__;
  const b = (window.__bench = { longtasks: [], acks: [], minSeq: Infinity, seqs: new Set(), inDom: -1, visible: -1, painted: -1, live: -1 });
  // When each socket ack (a history page) arrived, to tell its long tasks from the others.
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...a) {
      super(...a);
      this.addEventListener("message", (e) => {
        if (typeof e.data === "string" && /^43[0-9]/.test(e.data)) b.acks.push(performance.now());
      });
    }
  };
  try {
    new PerformanceObserver((l) => l.getEntries().forEach((e) => b.longtasks.push({ start: e.startTime, dur: e.duration }))).observe({ type: "longtask", buffered: true });
  } catch (e) {}
  function note(el) {
    const s = Number(el.getAttribute("data-seq"));
    b.seqs.add(s);
    if (s < b.minSeq) b.minSeq = s;
    if (s === newest && b.inDom < 0) b.inDom = performance.now();
  }
  new MutationObserver((muts) => {
    for (const m of muts)
      m.addedNodes.forEach((n) => {
        if (!(n instanceof Element)) return;
        if (n.hasAttribute("data-seq")) note(n);
        n.querySelectorAll("[data-seq]").forEach(note);
      });
  }).observe(document, { childList: true, subtree: true });
  function frame() {
    if (b.live < 0 && document.querySelector('[data-testid=feed-status][data-status="live"]')) b.live = performance.now();
    if (b.visible < 0) {
      const el = document.querySelector('[data-seq="' + newest + '"]');
      const box = document.querySelector("[data-testid=timeline]");
      const r = el && el.getBoundingClientRect();
      const t = box && box.getBoundingClientRect();
      if (r && t && r.height > 0 && r.bottom > t.top && r.top < t.bottom) {
        b.visible = performance.now();
        requestAnimationFrame(() => (b.painted = performance.now()));
      }
    }
    if (b.visible < 0 || b.live < 0) requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
})();
`;

/** History acks seen on the page's socket: `43<id>[{"ok":true,"events":[…]}]`. */
function countHistory(page: Page) {
  const c = { pages: 0, events: 0 };
  page.on("websocket", (ws) =>
    ws.on("framereceived", (f) => {
      const s = typeof f.payload === "string" ? f.payload : "";
      const m = /^43\d+/.exec(s);
      if (!m) return;
      try {
        const [ack] = JSON.parse(s.slice(m[0].length)) as [{ ok?: boolean; events?: unknown[] }];
        if (ack?.ok && Array.isArray(ack.events)) {
          c.pages++;
          c.events += ack.events.length;
        }
      } catch {
        /* not ours */
      }
    }),
  );
  return c;
}

/**
 * One visit: open a fresh login link, time the newest event's paint, then wheel the
 * timeline up until `olderTarget` events older than the first page have been scrolled
 * through (by seq), counting long tasks in that phase.
 */
export async function visit(
  browser: Browser,
  roomUrl: string,
  newestSeq: number,
  firstPageOldest: number,
  olderTarget: number,
  timeoutMs = 90_000,
  traced = false,
): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.addInitScript({ content: PROBE.replace("__NEWEST__", String(newestSeq)) });
    const history = countHistory(page);
    const traces = { load: "", scroll: "" };
    if (traced) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    await page.goto(roomUrl, { waitUntil: "commit", timeout: timeoutMs });
    await page.waitForFunction(
      () => {
        const b = (window as any).__bench;
        return b && b.painted >= 0 && b.live >= 0;
      },
      null,
      { timeout: timeoutMs, polling: 50 },
    );
    if (traced) traces.load = longTaskBreakdown(await browser.stopTracing());
    const load = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1;
      const b = (window as any).__bench;
      return {
        ttfb: nav.responseStart,
        dcl: nav.domContentLoadedEventEnd,
        redirects: nav.redirectCount,
        fcp,
        b: {
          inDom: b.inDom,
          visible: b.visible,
          painted: b.painted,
          live: b.live,
          long: b.longtasks.map((t: any) => t.dur),
        },
      };
    });

    // Scroll-back.
    const target = firstPageOldest - olderTarget;
    const box = (await page.locator("[data-testid=timeline]").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    if (traced) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const t0 = await page.evaluate(() => performance.now());
    const until = Date.now() + timeoutMs;
    let min = Infinity;
    while (Date.now() < until) {
      await page.mouse.wheel(0, -1500);
      await page.waitForTimeout(40);
      min = await page.evaluate(() => (window as any).__bench.minSeq as number);
      if (min <= target) break;
    }
    // Raw data out of the page; the sorting happens here (functions defined inside a page
    // callback would carry the transpiler's helpers).
    const raw = await page.evaluate(
      ({ from, oldest }) => {
        const b = (window as any).__bench;
        return {
          ms: performance.now() - from,
          tasks: (b.longtasks as { start: number; dur: number }[]).filter((t) => t.start >= from),
          acks: b.acks as number[],
          seqs: [...(b.seqs as Set<number>)].filter((s) => s < oldest).length,
        };
      },
      { from: t0, oldest: firstPageOldest },
    );
    // A task holding an ack's arrival, or starting within 300 ms after one (React's commit of the prepend).
    const afterAck = (t: { start: number; dur: number }) =>
      raw.acks.some((a) => (a >= t.start - 5 && a <= t.start + t.dur + 5) || (t.start >= a && t.start - a <= 300));
    const scroll = {
      ms: raw.ms,
      seqs: raw.seqs,
      lt: raw.tasks.map((t) => t.dur),
      prepend: raw.tasks.filter(afterAck).map((t) => t.dur),
      other: raw.tasks.filter((t) => !afterAck(t)).map((t) => t.dur),
    };
    if (traced) traces.scroll = longTaskBreakdown(await browser.stopTracing());
    return {
      ttfb: load.ttfb,
      fcp: load.fcp,
      domContentLoaded: load.dcl,
      newestInDom: load.b.inDom,
      newestVisible: load.b.visible,
      newestPainted: load.b.painted,
      live: load.b.live,
      redirects: load.redirects,
      loadLongest: Math.max(0, ...load.b.long),
      olderLoaded: history.events,
      historyPages: history.pages,
      scrolledSeqs: scroll.seqs,
      scrollMs: scroll.ms,
      scrollLongest: Math.max(0, ...scroll.lt),
      scrollOver100: scroll.lt.filter((d) => d > 100).length,
      scrollLongTasks: scroll.lt.length,
      prependLongest: Math.max(0, ...scroll.prepend),
      prependOver100: scroll.prepend.filter((d) => d > 100).length,
      otherLongest: Math.max(0, ...scroll.other),
      otherOver100: scroll.other.filter((d) => d > 100).length,
      reachedTarget: min <= target,
      traces: traced ? traces : undefined,
    };
  } finally {
    await context.close();
  }
}
