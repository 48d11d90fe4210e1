import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { test, expect } from "./support/fixtures";
import { baseURL, dataDir, linkPath } from "./support/api";
import { RoomPage } from "./support/room-page";
import { connectSocket, cookieHeader, join } from "./support/socket";
import { startOtherOrigin } from "./support/other-origin";

const run = promisify(execFile);
const noDuplicates = (seqs: number[]) => expect(new Set(seqs).size, `duplicates in ${seqs}`).toBe(seqs.length);

test.describe("people sessions", () => {
  test("a login link works once; a second use is refused", async ({ browser, page, admin, workspace }) => {
    const link = await admin.loginLink(workspace);
    await new RoomPage(page).open(link);
    const [session] = (await page.context().cookies()).filter((c) => c.name === "chips_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });

    const other = await browser.newContext();
    const again = await other.newPage();
    await again.goto(link);
    await expect(again).toHaveURL(/\/login\?error=link_used$/);
    await expect(again.getByRole("main").getByRole("alert")).toContainText("already used");
    expect(await other.cookies()).toEqual([]);
    await other.close();
  });

  test("a link from `chips login` works in a new context, and the person posts from the room", async ({
    browser,
    workspace,
    harness,
  }) => {
    const cli = await run(process.execPath, [
      path.resolve("bin/chips.mjs"),
      "login",
      "--workspace",
      workspace.workspace_id,
      "--space",
      workspace.space_id,
      "--url",
      baseURL(),
      "--data-dir",
      dataDir(),
    ]);
    const url = cli.stdout.trim();
    expect(url).toMatch(new RegExp(`/w/${workspace.workspace_id}/r/${workspace.space_id}\\?login=`));

    const context = await browser.newContext();
    const room = await new RoomPage(await context.newPage()).open(linkPath(url));
    await room.send("hello from a person");
    const stored = (await harness.events()).filter((e) => e.text === "hello from a person");
    expect(stored).toHaveLength(1);
    expect(stored[0].actor).toMatchObject({ kind: "person", id: workspace.person_id });
    await context.close();
  });

  test("a cross-site POST riding on the session cookie is refused", async ({ page, workspace, harness, loginAs }) => {
    await loginAs(page);
    const evil = harness.message("posted by evil.example");

    // The cookie goes along (a bearer-less request without it would be 401), the Origin does not match.
    const forged = await page.request.post("/api/v1/events", {
      headers: { origin: "https://evil.example" },
      data: evil,
    });
    expect(forged.status()).toBe(403);
    expect((await forged.json()).code).toBe("forbidden");

    const attacker = await startOtherOrigin(`${baseURL()}/api/v1/events`, evil);
    const posts: string[] = []; // each POST the page sent to our events endpoint
    page.on("request", (r) => {
      if (r.url() === `${baseURL()}/api/v1/events` && r.method() === "POST")
        posts.push(r.headers()["content-type"] ?? "");
    });
    try {
      // Another site: SameSite=Lax keeps the cookie home, so the form POST arrives without a credential.
      // The same site on another port: the cookie is sent, and the Origin check refuses it.
      for (const [host, status, code] of [
        ["127.0.0.1", 401, "unauthorized"],
        ["localhost", 403, "forbidden"],
      ] as const) {
        const answer = page.waitForResponse(
          (r) => r.url() === `${baseURL()}/api/v1/events` && r.request().method() === "POST",
        );
        await page.goto(attacker.url(host, "/form"));
        const r = await answer;
        expect(r.status(), `form POST from ${host}`).toBe(status);
        expect((await r.json()).code).toBe(code);

        posts.length = 0;
        await page.goto(attacker.url(host, "/fetch"));
        const results = await page.evaluate(
          () => (window as unknown as { __results: Promise<Record<string, string>> }).__results,
        );
        // The no-cors answer is withheld from the other site too (Cross-Origin-Resource-Policy: same-origin).
        expect(results, `fetches from ${host}`).toEqual({ cors: "blocked: TypeError", noCors: "blocked: TypeError" });
        // The preflighted JSON POST fails its preflight; the no-cors text/plain one goes out and is refused
        // as the form was (nothing is stored: checked below) — its answer never reaches the other site.
        await expect
          .poll(() => posts.filter((t) => t === "text/plain"), { message: `no-cors POST from ${host}` })
          .toEqual(["text/plain"]);
      }
    } finally {
      await attacker.close();
    }
    expect((await harness.events()).filter((e) => e.text === evil.text)).toEqual([]);
    // The same session still writes from its own page.
    await (await loginAs(page)).send("still here");
    expect((await harness.events()).map((e) => e.text)).toEqual(["still here"]);
  });

  test("a socket joins its own room with the session cookie, never another workspace's", async ({
    page,
    admin,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    await harness.postMessages(2);
    const cookie = await cookieHeader(page.context());
    const elsewhere = await admin.newWorkspace();

    const mine = await connectSocket({ cookie });
    if (!("socket" in mine)) throw new Error(`own cookie refused: ${mine.error}`);
    try {
      expect(await join(mine.socket, workspace.space_id, 0)).toEqual({ ok: true, head_seq: 2 });
      expect(await join(mine.socket, elsewhere.space_id, 0)).toEqual({ error: "space_not_found" });
    } finally {
      mine.socket.close();
    }
    expect(await connectSocket({})).toEqual({ error: "unauthorized" });
    // The handshake's Origin is checked too: our own origin passes, another site's does not.
    const ours = await connectSocket({ cookie, origin: new URL(baseURL()).origin });
    expect("socket" in ours && ours.socket.connected, "own origin accepted").toBe(true);
    if ("socket" in ours) ours.socket.close();
    expect(await connectSocket({ cookie, origin: "https://evil.example" })).toEqual({ error: "unauthorized" });
  });
});

test("[RT1] two browsers in one room get the same events in the same order", async ({
  browser,
  page,
  harness,
  loginAs,
}) => {
  const other = await browser.newContext();
  const [a, b] = [await loginAs(page), await loginAs(other)];

  await harness.postMessages(40, "single");
  await harness.post({ events: Array.from({ length: 10 }, (_, i) => harness.message(`batch one ${i}`)) });
  await harness.postMessages(5, "between");
  await harness.post({ events: Array.from({ length: 5 }, (_, i) => harness.message(`batch two ${i}`)) });

  const stored = await harness.roomSeqs();
  expect(stored).toHaveLength(60);
  await a.expectSeqs(stored);
  await b.expectSeqs(stored);
  noDuplicates(await a.timelineSeqs());
  await other.close();
});

test("[RT2] a browser taken offline catches up with nothing missing or doubled", async ({
  page,
  context,
  harness,
  loginAs,
}) => {
  const room = await loginAs(page);
  await harness.postMessages(5, "before");
  await room.expectSeqs(await harness.roomSeqs());
  const seen = await room.timelineSeqs();

  // Chromium keeps an open WebSocket open when offline but delivers nothing on it; the
  // feed notices through Socket.IO's heartbeat (the e2e server pings every 2 s, waits 5 s: playwright.config.ts).
  await context.setOffline(true);
  await harness.postMessages(30, "while offline");
  await room.waitStatus("reconnecting", 30_000);
  expect(await room.timelineSeqs(), "nothing arrives while offline").toEqual(seen);

  await context.setOffline(false);
  await room.waitLive();
  await harness.postMessages(5, "after");
  const stored = await harness.roomSeqs();
  expect(stored).toHaveLength(40);
  await room.expectSeqs(stored);
  noDuplicates(await room.timelineSeqs());
});

test("[RT4] a browser that misses one frame notices the gap and fetches what it missed", async ({
  page,
  harness,
  admin,
  workspace,
}) => {
  // Drop exactly one `events` frame on its way to the page; the next event's prev_seq shows the hole.
  let dropped = 0;
  const joins: number[] = []; // after_seq of each join the page sends
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((frame) => {
      if (typeof frame === "string" && /^42\d*\["join",/.test(frame))
        joins.push(JSON.parse(frame.slice(frame.indexOf("[")))[1].after_seq);
      server.send(frame);
    });
    server.onMessage((frame) => {
      if (!dropped && typeof frame === "string" && frame.startsWith('42["events"') && frame.includes("drop me")) {
        dropped++;
        return;
      }
      ws.send(frame);
    });
  });
  const room = await new RoomPage(page).open(await admin.loginLink(workspace));

  await harness.postMessages(3, "before");
  await room.expectSeqs([1, 2, 3]);
  await harness.post(harness.message("drop me"));
  await harness.postMessages(3, "after");
  await room.expectSeqs(await harness.roomSeqs());
  expect(dropped, "the frame was dropped").toBe(1);
  // Joined from 0, then again from 3, the last seq before the hole (a later arrival may ask once more).
  expect(joins.slice(0, 2), `joins from ${joins}`).toEqual([0, 3]);
  noDuplicates(await room.timelineSeqs());
});
