import { test as base, expect, type BrowserContext, type Page } from "@playwright/test";
import { Admin, Harness, baseURL, readAdminToken, type Workspace } from "./api";
import { RoomPage } from "./room-page";
import { Scratch } from "./scratch";

export interface ChipsFixtures {
  /** The admin API (token read from the server's data directory). */
  admin: Admin;
  /** A fresh workspace for this test: one room, one harness, one owner. */
  workspace: Workspace;
  /** The workspace's harness: posts events and reads them back. */
  harness: Harness;
  /** Log a page (or a new page of a context) in with a fresh one-time link to a workspace's room. */
  loginAs: (target: Page | BrowserContext, ws?: Workspace) => Promise<RoomPage>;
  /** Every CSP violation any page of this test reported (the test fails on any). */
  cspViolations: string[];
  /** The test's temp dir and what it started outside the server, undone after it. */
  scratch: Scratch;
}

/**
 * Report every Content-Security-Policy violation of a context's pages: the DOM's
 * `securitypolicyviolation` events and Chromium's console lines about refused content.
 */
async function guardCsp(context: BrowserContext, violations: string[]) {
  await context.exposeBinding("__chipsCspViolation", (_source, v: string) => void violations.push(v));
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const report = (window as unknown as { __chipsCspViolation: (v: string) => void }).__chipsCspViolation;
      void report(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  context.on("console", (m) => {
    if (/Content Security Policy|Refused to (execute|load|apply|connect|frame|evaluate)/i.test(m.text()))
      violations.push(m.text());
  });
}

const isPage = (t: Page | BrowserContext): t is Page => "goto" in t;

/** Once per worker: the server runs on the database this run asked for (webServer.env merges over the shell's). */
interface WorkerFixtures {
  serverDatabase: string;
}

export const test = base.extend<ChipsFixtures, WorkerFixtures>({
  serverDatabase: [
    async ({ playwright }, use) => {
      const api = await playwright.request.newContext({ baseURL: baseURL() });
      const health = await (await api.get("/api/v1/health")).json();
      await api.dispose();
      expect(health, "the e2e server's database").toMatchObject({
        ok: true,
        ready: true,
        db: process.env.CHIPS_E2E_DATABASE_URL ? "postgres" : "pglite",
      });
      await use(health.db);
    },
    { scope: "worker", auto: true },
  ],
  // The CSP holds for the whole suite: every test's contexts (the default one and any it
  // opens) are watched, and a test whose pages reported a violation fails.
  cspViolations: [
    async ({ browser, context }, use) => {
      const violations: string[] = [];
      await guardCsp(context, violations);
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (...args) => {
        const c = await newContext(...args);
        await guardCsp(c, violations);
        return c;
      };
      await use(violations);
      browser.newContext = newContext;
      expect(violations, "Content-Security-Policy violations reported by the browser").toEqual([]);
    },
    { auto: true },
  ],
  scratch: async ({}, use) => {
    const scratch = new Scratch();
    await use(scratch);
    await scratch.close();
  },
  admin: async ({ request }, use) => {
    await use(new Admin(request, readAdminToken()));
  },
  workspace: async ({ admin }, use) => {
    await use(await admin.newWorkspace());
  },
  harness: async ({ request, workspace }, use) => {
    await use(new Harness(request, workspace));
  },
  loginAs: async ({ admin, workspace }, use) => {
    await use(async (target, ws = workspace) => {
      const page = isPage(target) ? target : await target.newPage();
      return new RoomPage(page).open(await admin.loginLink(ws));
    });
  },
});

export { expect };
