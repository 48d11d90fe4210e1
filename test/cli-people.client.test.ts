import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCli } from "../cli/main";
import { serverWithWorkspace, request, type Workspace } from "./support/api";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

async function chips(args: string[]) {
  let out = "";
  let err = "";
  const env = { CHIPS_URL: server.url, CHIPS_ADMIN_TOKEN: server.adminToken, CHIPS_TOKEN: ws.token };
  const code = await runCli(args, { env, io: { out: (s) => (out += s), err: (s) => (err += s) } });
  return { code, out, err };
}

describe("chips people / chips harness", () => {
  it("people invite prints a link that makes a viewer once; list shows them; revoke stops their session", async () => {
    const inv = await chips(["people", "invite", "--role", "viewer", "--expires", "2h"]);
    expect(inv.err).toBe("");
    const link = new URL(inv.out.split("\n")[0]);
    expect(inv.out).toContain("(viewer, single-use, until ");
    const opened = await fetch(`${server.url}/invite?code=${link.searchParams.get("code")}&name=Lee`, {
      redirect: "manual",
    });
    expect(opened.headers.get("location")).toBe(`/w/${ws.workspace_id}`);
    const cookie = opened.headers.get("set-cookie")!.split(";")[0];
    const again = await fetch(`${server.url}/invite?code=${link.searchParams.get("code")}&name=Lee2`, {
      redirect: "manual",
    });
    expect(again.headers.get("location")).toBe("/login?error=invite_used");

    const list = await chips(["people", "list", "--json"]);
    const lee = (JSON.parse(list.out) as { id: string; name: string; role: string }[]).find((p) => p.name === "Lee")!;
    expect(lee.role).toBe("viewer");
    expect((await request(`${server.url}/api/v1/me`, { headers: { cookie } })).status).toBe(200);
    expect((await chips(["people", "revoke", lee.id])).out).toBe(`revoked ${lee.id}\n`);
    expect((await request(`${server.url}/api/v1/me`, { headers: { cookie } })).status).toBe(401);
  });

  it("harness token mints a working token; harness revoke stops it; a bad role is refused", async () => {
    const made = JSON.parse((await chips(["harness", "token", "--name", "ci", "--json"])).out) as {
      harness_id: string;
      token: string;
    };
    expect((await request(`${server.url}/api/v1/me`, { token: made.token })).status).toBe(200);
    expect((await chips(["harness", "revoke", made.harness_id])).code).toBe(0);
    expect((await request(`${server.url}/api/v1/me`, { token: made.token })).status).toBe(401);
    const bad = await chips(["people", "invite", "--role", "king"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("validation_failed");
  });
});
