import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCli } from "../cli/main";
import { message, newWorkspace, post, request, runStarted, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
/** The server's data directory: its default harness (harness-token) belongs to the default workspace. */
let dataDir: string;
let defaultWs: string;
/** Another workspace: its owner's person token is the one given to the CLI. */
let other: Workspace;
beforeAll(async () => {
  server = await startTestServer();
  dataDir = path.dirname(server.chips.boot.adminTokenFile);
  defaultWs = server.chips.boot.defaults.workspace_id;
  other = await newWorkspace(server, { workspace: "B" });
});
afterAll(() => server?.close());

/** `chips …` against the real server, on its data directory, with no token in the environment. */
async function chips(args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli([...args, "--data-dir", dataDir], {
    env: { CHIPS_URL: server.url },
    io: { out: (s) => (out += s), err: (s) => (err += s) },
  });
  return { code, out, err };
}

/** Open an invite link as a browser would: where it lands. */
async function redeem(link: string) {
  const code = new URL(link).searchParams.get("code");
  const res = await fetch(`${server.url}/invite?code=${code}&name=Lee`, { redirect: "manual" });
  return res.headers.get("location");
}

describe("[CLI1] the CLI acts in the workspace of the token it is given", () => {
  it("[CLI1] people invite --token <B's owner> invites into B, though the data dir's default harness is in another workspace", async () => {
    expect(defaultWs).not.toBe(other.workspace_id);
    const inv = await chips(["people", "invite", "--role", "viewer", "--token", other.person_token, "--json"]);
    expect(inv.err).toBe("");
    expect(inv.code).toBe(0);
    expect(await redeem((JSON.parse(inv.out) as { url: string }).url)).toBe(`/w/${other.workspace_id}`);
    const listed = await chips(["people", "list", "--token", other.person_token, "--json"]);
    expect((JSON.parse(listed.out) as { name: string; role: string }[]).map((p) => [p.name, p.role])).toContainEqual([
      "Lee",
      "viewer",
    ]);
    // The same with --workspace naming B: it agrees with the token.
    const agreed = await chips(["harness", "list", "--token", other.person_token, "--workspace", other.workspace_id]);
    expect(agreed.code).toBe(0);
    expect(agreed.out).toContain(other.harness_id);
  });

  it("[CLI1] --workspace naming another workspace than the token's is refused before anything is sent (exit 2, both named)", async () => {
    const r = await chips([
      "people",
      "invite",
      "--role",
      "viewer",
      "--token",
      other.person_token,
      "--workspace",
      defaultWs,
    ]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(`--workspace ${defaultWs} is not this token's workspace`);
    expect(r.err).toContain(other.workspace_id);
    const access = await request(`${server.url}/api/v1/workspaces/${defaultWs}/access`, { token: server.adminToken });
    expect(access.body.invites).toEqual([]);
  });

  it("[CLI1] events, export, import and runner token take the workspace from the token when --workspace is left out", async () => {
    for (const e of [message(other, "in B"), runStarted(other)])
      expect((await post(server, other.token, e)).status).toBe(201);
    const events = await chips(["events", "--token", other.token]);
    expect(events.code).toBe(0);
    const lines = events.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { workspace_id: string; text?: string });
    expect(lines.map((e) => e.text)).toContain("in B");
    expect(new Set(lines.map((e) => e.workspace_id))).toEqual(new Set([other.workspace_id]));

    const exported = await chips(["export", "--token", other.person_token]);
    expect(exported.code).toBe(0);
    expect((JSON.parse(exported.out) as { workspace_id: string }).workspace_id).toBe(other.workspace_id);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-cli-ws-"));
    const file = path.join(tmp, "export.json");
    fs.writeFileSync(file, exported.out);
    const imported = await chips(["import", file, "--token", other.person_token]);
    expect(imported.err).toBe("");
    expect(imported.out).toContain("stored 1 events");
    fs.rmSync(tmp, { recursive: true, force: true });

    const minted = await chips(["runner", "token", "--name", "b-runner", "--token", other.person_token, "--json"]);
    expect(minted.err).toBe("");
    expect((JSON.parse(minted.out) as { workspace_id: string }).workspace_id).toBe(other.workspace_id);
  });

  it("[CLI1] with the admin token (no --token) --workspace decides, else the default harness's workspace", async () => {
    const dflt = await chips(["people", "invite", "--role", "viewer", "--json"]);
    expect(await redeem((JSON.parse(dflt.out) as { url: string }).url)).toBe(`/w/${defaultWs}`);
    const named = await chips(["people", "invite", "--role", "viewer", "--workspace", other.workspace_id, "--json"]);
    expect(await redeem((JSON.parse(named.out) as { url: string }).url)).toBe(`/w/${other.workspace_id}`);
  });
});
