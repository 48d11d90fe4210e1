import { test, expect } from "./support/fixtures";
import { baseURL } from "./support/api";
import { RunPanelView, TypingIndicatorView } from "./support/run-panel";
import { Person, TestRun } from "./support/runs";

/** Untrusted text that must stay text ([UI4]). */
const CORPUS: [payload: string, shownInAMessage: string][] = [
  [`<script>alert("script")</script>`, `<script>alert("script")</script>`],
  [`<img src=x onerror=alert("img")>`, `<img src=x onerror=alert("img")>`],
  [`<svg onload=alert("svg")><circle r=1 /></svg>`, `<svg onload=alert("svg")>`],
  [`<svg><script>alert("svg-script")</script></svg>`, `<svg><script>alert("svg-script")</script></svg>`],
  [`<a href="javascript:alert('a')">click me</a>`, `<a href="javascript:alert('a')">click me</a>`],
  [`[md link](javascript:alert('md'))`, `md link`],
  [`[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`, `data link`],
  [`[spaced](  javascript:alert('spaced'))`, `spaced`],
  [`[entity](&#106;avascript:alert('entity'))`, `entity`],
  [`[case](JaVaScRiPt:alert('case'))`, `case`],
  [`![beacon](https://evil.example/beacon.png)`, `[image: beacon]`],
  [`<iframe src="https://evil.example/frame"></iframe>`, `<iframe src="https://evil.example/frame"></iframe>`],
  [
    `<div style="background:url(https://evil.example/bg.png)">styled</div>`,
    `<div style="background:url(https://evil.example/bg.png)">styled</div>`,
  ],
  [`<details open ontoggle=alert("toggle")>x</details>`, `<details open ontoggle=alert("toggle")>x</details>`],
  [
    `<form action="https://evil.example/steal"><button>go</button></form>`,
    `<form action="https://evil.example/steal"><button>go</button></form>`,
  ],
  [`https://evil.example/autolink`, `https://evil.example/autolink`],
];

test.describe("[UI4] untrusted text renders as inert text", () => {
  test("[UI4] the XSS corpus as goal, step titles, verb_phrase, session_ref and messages: no dialog, no request leaves the page", async ({
    page,
    request,
    workspace,
    harness,
    loginAs,
  }) => {
    test.setTimeout(180_000);
    const dialogs: string[] = [];
    const foreign: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(baseURL())) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    page.on("request", (r) => {
      if (!r.url().startsWith(baseURL()) && !r.url().startsWith("ws://")) foreign.push(r.url());
    });
    await loginAs(page);
    const person = new Person(request, workspace);
    for (const [payload, shown] of CORPUS) {
      const run = new TestRun(harness, workspace);
      await run.start({ goal: payload, session_ref: payload, plan: [{ step_id: "x", title: payload }] });
      await run.status({ verb_phrase: payload, progress: 0.5 });
      // Each payload shows as the text it is: the goal heading, the session_ref, the step title, the verb phrase.
      const panel = new RunPanelView(page, run.id);
      await expect(panel.goal).toHaveText(payload);
      await expect(panel.root.getByTestId("run-session-ref")).toHaveText(payload);
      await expect(panel.dots.first()).toHaveAttribute("aria-label", `${payload} — pending`);
      await expect(new TypingIndicatorView(page, run.id).verb).toHaveText(payload);
      const [fromHarness] = await harness.post(harness.message(payload));
      const fromPerson = await person.message(payload);
      for (const seq of [fromHarness.seq, fromPerson.seq])
        await expect(page.locator(`[data-seq="${seq}"]`)).toContainText(shown);
      await run.finish();
    }
    // Nothing became live markup.
    const live = await page.evaluate(() => ({
      scripts: [...document.querySelectorAll("script")].filter((s) => !s.src && /alert\(/.test(s.textContent ?? ""))
        .length,
      handlers: [...document.querySelectorAll("*")].filter((e) =>
        [...e.attributes].some((a) => a.name.startsWith("on")),
      ).length,
      jsLinks: [...document.querySelectorAll("a[href]")].filter(
        (a) => !/^(https?:|mailto:|\/|#)/i.test(a.getAttribute("href")!),
      ).length,
      frames: document.querySelectorAll("iframe, object, embed, form[action]").length,
      svgs: [...document.querySelectorAll("svg")].filter((s) => s.querySelector("script")).length,
    }));
    expect(live).toEqual({ scripts: 0, handlers: 0, jsLinks: 0, frames: 0, svgs: 0 });
    await page.getByTestId("timeline").evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(
      page
        .getByTestId("timeline")
        .getByText(CORPUS[CORPUS.length - 1][1], { exact: true })
        .first(),
    ).toBeVisible();
    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
  });

  test("[UI4] long outputs are collapsed behind Show more", async ({ page, workspace, harness, loginAs }) => {
    await loginAs(page);
    const long = Array.from({ length: 60 }, (_, i) => `line ${i + 1} of a long build log`).join("\n");
    const [stored] = await harness.post(harness.message("```\n" + long + "\n```"));
    const item = page.locator(`[data-seq="${stored.seq}"]`);
    const more = item.getByRole("button", { name: "Show more" });
    await expect(more).toBeVisible();
    await expect(more).toHaveAttribute("aria-expanded", "false");
    await more.click();
    await expect(item.getByRole("button", { name: "Show less" })).toHaveAttribute("aria-expanded", "true");
  });
});
