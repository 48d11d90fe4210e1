import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCli } from "../cli/main";
import { serverWithWorkspace, request, type Workspace } from "./support/api";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

/** `chips …` against the real server, as the workspace's owner (their person token, not the admin's). */
async function chips(args: string[]) {
  let out = "";
  let err = "";
  const env = { CHIPS_URL: server.url };
  const code = await runCli([...args, "--workspace", ws.workspace_id, "--token", ws.person_token], {
    env,
    io: { out: (s) => (out += s), err: (s) => (err += s) },
  });
  return { code, out, err };
}

const me = (auth: { token?: string; headers?: Record<string, string> }) => request(`${server.url}/api/v1/me`, auth);

// docs/ROLES.md: what the workspace page does, from the command line.
describe("chips harness token|list|revoke tok_… and chips people role|withdraw", () => {
  it("a second token for a harness is listed with its last use; revoking it alone stops it at once, the first goes on", async () => {
    const made = await chips(["harness", "token", "--harness", ws.harness_id, "--json"]);
    expect(made.err).toBe("");
    const second = JSON.parse(made.out) as { token_id: string; token: string; harness_id: string };
    expect(second.token_id).toMatch(/^tok_/);
    expect(second.harness_id).toBe(ws.harness_id);
    expect((await me({ token: second.token })).status).toBe(200);

    const listed = await chips(["harness", "list"]);
    expect(listed.code).toBe(0);
    const line = listed.out.split("\n").find((l) => l.includes(second.token_id))!;
    expect(line).toMatch(/last used \d{4}-\d\d-\d\dT/);
    expect(listed.out).not.toContain(second.token); // never the token itself

    expect(await chips(["harness", "revoke", second.token_id])).toMatchObject({
      code: 0,
      out: `revoked ${second.token_id}\n`,
    });
    expect((await me({ token: second.token })).status).toBe(401);
    expect((await me({ token: ws.token })).status).toBe(200);
    expect((await chips(["harness", "list"])).out).not.toContain(second.token_id);

    const again = await chips(["harness", "revoke", second.token_id]);
    expect(again.code).toBe(1);
    expect(again.err).toContain("not_found");
  });

  it("people role makes a member a viewer; people list shows open invites; withdraw sends the link to the login page", async () => {
    const inv = JSON.parse((await chips(["people", "invite", "--role", "member", "--json"])).out) as { url: string };
    const opened = await fetch(`${server.url}/invite?code=${new URL(inv.url).searchParams.get("code")}&name=Mo`, {
      redirect: "manual",
    });
    const cookie = opened.headers.get("set-cookie")!.split(";")[0];
    const mo = (await me({ headers: { cookie } })).body as { id: string };
    const roleOf = async () =>
      (JSON.parse((await chips(["people", "list", "--json"])).out) as { id: string; role: string }[]).find(
        (p) => p.id === mo.id,
      )?.role;
    expect(await roleOf()).toBe("member");

    expect(await chips(["people", "role", mo.id, "--role", "viewer"])).toMatchObject({
      code: 0,
      out: `${mo.id} is now viewer\n`,
    });
    expect(await roleOf()).toBe("viewer");

    const open = JSON.parse((await chips(["people", "invite", "--role", "viewer", "--json"])).out) as {
      invite_id: string;
      url: string;
    };
    const list = await chips(["people", "list"]);
    expect(list.out).toMatch(new RegExp(`${mo.id}  viewer  Mo`));
    expect(list.out).toMatch(new RegExp(`${open.invite_id}  viewer  invite, single-use`));
    expect(await chips(["people", "withdraw", open.invite_id])).toMatchObject({
      code: 0,
      out: `withdrew ${open.invite_id}\n`,
    });
    expect((await chips(["people", "list"])).out).not.toContain(open.invite_id);
    const late = await fetch(`${server.url}/invite?code=${new URL(open.url).searchParams.get("code")}&name=Late`, {
      redirect: "manual",
    });
    expect(late.headers.get("location")).toMatch(/^\/login\?error=/);

    const usage = await chips(["people", "role", mo.id]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("--role");
    const bad = await chips(["people", "role", mo.id, "--role", "king"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("validation_failed");
    expect(await roleOf()).toBe("viewer");
  });
});
