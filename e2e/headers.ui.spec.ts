import { test, expect } from "./support/fixtures";

/** Pages carry the hardening headers and a CSP whose nonce is on every script Next wrote (a second line of defence behind [UI4]). */
test("pages: CSP with a fresh nonce on every script, no framing, nosniff, referrer policy", async ({
  page,
  loginAs,
}) => {
  await loginAs(page);
  const roomPath = new URL(page.url()).pathname;
  const nonces: string[] = [];
  for (const path of [roomPath, roomPath, "/login"]) {
    const res = await page.request.get(path);
    expect(res.status()).toBe(200);
    const h = res.headers();
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("same-origin");
    const csp = h["content-security-policy"];
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    nonces.push(nonce);
    const scripts = [...(await res.text()).matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts)
      expect(s, "every script Next wrote carries the answer's nonce").toContain(`nonce="${nonce}"`);
  }
  expect(new Set(nonces).size, "a fresh nonce per answer").toBe(nonces.length);
});

test("another site cannot frame the room", async ({ page, loginAs }) => {
  await loginAs(page);
  const room = page.url();
  // A page of another origin that frames the room: the browser refuses to render the room
  // there (frame-ancestors 'none'); without the headers the frame would hold a Chips page.
  await page.route("http://127.0.0.1:9/frame", (r) =>
    r.fulfill({ contentType: "text/html", body: `<iframe src="${room}"></iframe>` }),
  );
  await page.goto("http://127.0.0.1:9/frame");
  await expect
    .poll(() =>
      page
        .frames()
        .find((f) => f !== page.mainFrame())
        ?.url(),
    )
    .toMatch(/^chrome-error:/);
});

test("[HTTP6] a page address that is not valid percent-encoding is 400, not Next's 500", async ({ page, loginAs }) => {
  await loginAs(page);
  const ws = new URL(page.url()).pathname.split("/")[2];
  for (const path of ["/w/%FF", `/w/${ws}/runs/%FF`, `/w/${ws}/r/spc_%C3%28`]) {
    expect((await page.request.get(path, { maxRedirects: 0 })).status(), path).toBe(400);
  }
  expect((await page.request.get(`/w/${ws}/runs/run_00000000000000000000000000`)).status()).toBe(404);
});
