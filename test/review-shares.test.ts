import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shareLinks } from "../db/schema";
import type { ExportDocument, ShareLink } from "../lib/core/protocol";
import { sha256 } from "../lib/server/hash";
import { openShare } from "../lib/server/review/shares";
import { seedHistory } from "../lib/dev/history";
import { message, newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [SHR1] Share links over HTTP and through the function the shared page opens them with
 * (the page itself is Next's: e2e/review-share.ui.spec.ts opens it in Chromium): a link
 * shows one run of one workspace and nothing else; its token is 256 random bits stored
 * only as a hash; revoked or expired it opens nothing; every open is logged. Also [EXP1]:
 * an export of one workspace carries nothing of another.
 */
let server: TestServer;
let a: Workspace;
let b: Workspace;
let runsA: string[];
let runsB: string[];
/** Text only B has: none of it may show through A's links or exports. */
const B_ONLY = [
  "Bravo Only Inc",
  "Bea Onlyperson",
  "bravo-private-room",
  "bravo-secret-harness",
  "the bravo secret message",
];

const call = (ws: Workspace, method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    token: ws.person_token,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const share = async (ws: Workspace, runId: string, body: Record<string, unknown> = {}) => {
  const r = await call(ws, "POST", `/api/v1/runs/${runId}/shares`, body);
  expect(r.status, r.text).toBe(201);
  return r.body as { link: ShareLink; url: string };
};
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
const open = (url: string, address = "203.0.113.7") =>
  openShare(server.chips.services, tokenOf(url), { address, userAgent: "vitest" });
/** Every id of a workspace-bound kind in a value. */
const idsIn = (v: unknown) =>
  new Set(JSON.stringify(v).match(/\b(ws|spc|run|evt|hrn|agt|rnr|usr|cmd)_[0-9A-Z]{26}\b/g) ?? []);

beforeAll(async () => {
  server = await startTestServer({ authAttemptsPerMinute: 0 });
  a = await newWorkspace(server, { workspace: "Alpha" });
  b = await newWorkspace(server, { workspace: B_ONLY[0], owner: B_ONLY[1], space: B_ONLY[2], harness: B_ONLY[3] });
  for (const [ws, seed] of [
    [a, 21],
    [b, 22],
  ] as const) {
    const r = await call(
      ws,
      "POST",
      `/api/v1/workspaces/${ws.workspace_id}/import`,
      seedHistory({ runs: 6, events: 150, seed }).doc,
    );
    expect(r.status, r.text).toBe(201);
    if (ws === a) runsA = r.body.runs.map((x: { to: string }) => x.to);
    else runsB = r.body.runs.map((x: { to: string }) => x.to);
  }
  const m = await request(`${server.url}/api/v1/events`, {
    method: "POST",
    token: b.token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(message(b, B_ONLY[4])),
  });
  expect(m.status, m.text).toBe(201);
}, 120_000);
afterAll(() => server?.close());

describe("[SHR1] share links", () => {
  it("[SHR1] a link of workspace A shows its one run: no other run of A, nothing of B", async () => {
    const made = await share(a, runsA[0]);
    const seen = await open(made.url);
    expect(seen).not.toBeNull();
    expect(seen!.run.id).toBe(runsA[0]);
    expect(seen!.events.length).toBeGreaterThan(0);
    expect(seen!.events.every((e) => e.run_id === runsA[0] && e.workspace_id === a.workspace_id)).toBe(true);
    const ids = idsIn(seen);
    for (const other of [...runsA.slice(1), ...runsB, b.workspace_id, b.space_id, b.person_id, b.harness_id])
      expect(ids.has(other), other).toBe(false);
    const text = JSON.stringify(seen);
    for (const s of B_ONLY) expect(text).not.toContain(s);
    // Names are the run's, not the workspace's whole directory.
    expect(Object.keys(seen!.names.rooms)).toEqual([seen!.run.space_id]);
  });

  it("[SHR1] another workspace can neither make, list nor revoke A's links", async () => {
    const made = await share(a, runsA[1]);
    expect((await call(b, "POST", `/api/v1/runs/${runsA[1]}/shares`, {})).status).toBe(404);
    expect((await call(b, "GET", `/api/v1/workspaces/${a.workspace_id}/shares`)).status).toBe(403);
    expect((await call(b, "DELETE", `/api/v1/workspaces/${a.workspace_id}/shares/${made.link.id}`)).status).toBe(403);
    expect((await call(b, "DELETE", `/api/v1/workspaces/${b.workspace_id}/shares/${made.link.id}`)).status).toBe(404);
    const listed = (await call(b, "GET", `/api/v1/workspaces/${b.workspace_id}/shares`)).body.shares as ShareLink[];
    expect(listed.map((s) => s.id)).not.toContain(made.link.id);
    expect(await open(made.url)).not.toBeNull();
  });

  it("[SHR1] tokens are 256 random bits, stored only as their SHA-256; the answers never repeat one", async () => {
    const one = await share(a, runsA[2]);
    const two = await share(a, runsA[2]);
    const [t1, t2] = [tokenOf(one.url), tokenOf(two.url)];
    expect(t1).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(t1).not.toBe(t2);
    const rows = await server.chips.services.db.select().from(shareLinks).where(eq(shareLinks.runId, runsA[2]));
    expect(rows.map((r) => r.tokenHash).sort()).toEqual([sha256(t1), sha256(t2)].sort());
    for (const t of [t1, t2]) expect(JSON.stringify(rows)).not.toContain(t);
    const listed = await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/shares?run=${runsA[2]}`);
    expect(listed.body.shares).toHaveLength(2);
    for (const t of [t1, t2]) expect(listed.text).not.toContain(t);
    // A near miss opens nothing.
    expect(
      await openShare(server.chips.services, t1.slice(0, -1) + (t1.endsWith("A") ? "B" : "A"), {
        address: null,
        userAgent: null,
      }),
    ).toBeNull();
  });

  it("[SHR1] a seq range shows the run as it stood at the range's end, and only the events inside", async () => {
    const full = (await call(a, "GET", `/api/v1/runs/${runsA[3]}/export?format=ndjson`)).text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq: number });
    expect(full.length).toBeGreaterThan(4);
    const [from, to] = [full[1].seq, full[full.length - 2].seq];
    const seen = await open((await share(a, runsA[3], { from_seq: from, to_seq: to })).url);
    expect(seen!.events.map((e) => e.seq)).toEqual(full.slice(1, -1).map((e) => e.seq));
    expect(seen!.run.last_seq).toBe(to);
  });

  it("[SHR1] revoked by its maker or an owner, or expired, a link opens nothing; every open is logged with where from", async () => {
    const made = await share(a, runsA[4]);
    expect(await open(made.url, "198.51.100.4")).not.toBeNull();
    expect(await open(made.url, "198.51.100.5")).not.toBeNull();
    const listed = (await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/shares?run=${runsA[4]}`)).body
      .shares as ShareLink[];
    expect(listed[0].opens.map((o) => o.address).sort()).toEqual(["198.51.100.4", "198.51.100.5"]);
    expect(listed[0].opens.every((o) => o.user_agent === "vitest" && !Number.isNaN(Date.parse(o.opened_at)))).toBe(
      true,
    );

    const del = await call(a, "DELETE", `/api/v1/workspaces/${a.workspace_id}/shares/${made.link.id}`);
    expect(del.status).toBe(200);
    expect(await open(made.url)).toBeNull();
    const after = (await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/shares?run=${runsA[4]}`)).body
      .shares as ShareLink[];
    expect(after[0].revoked_by).toBe(a.person_id);

    const expiring = await share(a, runsA[4]);
    expect(await open(expiring.url)).not.toBeNull();
    await server.chips.services.db
      .update(shareLinks)
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where(eq(shareLinks.id, expiring.link.id));
    expect(await open(expiring.url)).toBeNull();
  });

  it("[SHR1] bad input: 422 with the field at fault, nothing stored", async () => {
    const before = (await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/shares`)).body.shares.length;
    for (const [body, pointer] of [
      [{ expires_in_seconds: 0 }, "/expires_in_seconds"],
      [{ expires_in_seconds: 31 * 86_400 }, "/expires_in_seconds"],
      [{ from_seq: 10, to_seq: 9 }, "/to_seq"],
      [{ from_seq: 10 ** 9 }, "/from_seq"],
      [{ to_seq: 1 }, "/to_seq"],
    ] as const) {
      const r = await call(a, "POST", `/api/v1/runs/${runsA[5]}/shares`, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(r.body.errors ?? r.body), JSON.stringify(body)).toContain(pointer);
    }
    expect((await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/shares`)).body.shares.length).toBe(before);
  });
});

describe("[EXP1] export isolation", () => {
  it("[EXP1] an export of workspace A carries no id, name or text of workspace B", async () => {
    const doc = (await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/review/export`)).body as ExportDocument;
    expect(doc.runs.map((r) => r.run.id).sort()).toEqual([...runsA].sort());
    const ids = idsIn(doc);
    for (const other of [...runsB, b.workspace_id, b.space_id, b.person_id, b.harness_id])
      expect(ids.has(other), other).toBe(false);
    const text = JSON.stringify(doc);
    for (const s of B_ONLY) expect(text).not.toContain(s);
    // And a run of B asked for by id through A's credential is not there at all.
    expect((await call(a, "GET", `/api/v1/runs/${runsB[0]}/export`)).status).toBe(404);
  });

  it("[SHR1] an open's user agent is kept to 300 UTF-8 bytes, never cut inside a character", async () => {
    const long = await share(a, runsA[4]);
    const agent = "Navigateur/1.0 " + "é🚀".repeat(100);
    expect(
      await openShare(server.chips.services, tokenOf(long.url), { address: "198.51.100.6", userAgent: agent }),
    ).not.toBeNull();
    const logged = (
      await call(a, "GET", `/api/v1/workspaces/${a.workspace_id}/shares?run=${runsA[4]}`)
    ).body.shares.find((s: ShareLink) => s.id === long.link.id).opens[0].user_agent as string;
    expect(Buffer.byteLength(logged)).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(logged)).toBeGreaterThan(290);
    expect(logged.endsWith("…")).toBe(true);
    expect(agent.startsWith(logged.slice(0, -1))).toBe(true);
    expect(logged).not.toMatch(/[\uD800-\uDFFF]/u); // no half of a pair
  });
});
