import type { WorkspaceCreated } from "../../lib/core/protocol/http";
import fs from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext } from "@playwright/test";
import { newId } from "../../lib/core/protocol";

export type Workspace = WorkspaceCreated;

export interface StoredEvent {
  seq: number;
  type: string;
  id: string;
  space_id?: string;
  text?: string;
  [field: string]: unknown;
}

/** The server's data directory for this run (made by playwright.config.ts). */
export function dataDir(): string {
  const dir = process.env.CHIPS_E2E_DATA_DIR;
  if (!dir) throw new Error("CHIPS_E2E_DATA_DIR is not set: run through `npx playwright test`");
  return dir;
}

export function baseURL(): string {
  return process.env.CHIPS_E2E_BASE_URL!;
}

/** The admin token the server wrote on its first start. */
export function readAdminToken(): string {
  return fs.readFileSync(path.join(dataDir(), "admin-token"), "utf8").trim();
}

/** A one-time login link as a path on our server (its host is the public URL's). */
export function linkPath(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

/** The admin API, with the admin token. */
export class Admin {
  constructor(
    private request: APIRequestContext,
    readonly token: string,
  ) {}

  private auth() {
    return { authorization: `Bearer ${this.token}` };
  }

  /** A fresh workspace with a room, a harness and its owner (names optional). */
  async newWorkspace(
    names: { workspace?: string; space?: string; harness?: string; owner?: string } = {},
  ): Promise<Workspace> {
    const r = await this.request.post("/api/v1/admin/workspaces", { headers: this.auth(), data: names });
    expect(r.status(), await r.text()).toBe(201);
    return r.json();
  }

  /** A fresh one-time login link to a room, as a path. */
  async loginLink(ws: Workspace): Promise<string> {
    const r = await this.request.post("/api/v1/admin/login-links", {
      headers: this.auth(),
      data: { workspace_id: ws.workspace_id, space_id: ws.space_id },
    });
    expect(r.status(), await r.text()).toBe(201);
    return linkPath(((await r.json()) as { url: string }).url);
  }
}

let keys = 0;

/** A harness of a workspace: posts events with its bearer token and reads them back. */
export class Harness {
  constructor(
    private request: APIRequestContext,
    readonly ws: Workspace,
  ) {}

  /** A valid message.posted from this harness in the workspace's room. */
  message(text: string): Record<string, unknown> {
    return {
      v: 1,
      type: "message.posted",
      id: newId("event"),
      workspace_id: this.ws.workspace_id,
      space_id: this.ws.space_id,
      actor: { kind: "harness", id: this.ws.harness_id },
      idempotency_key: `e2e-${process.pid}-${Date.now()}-${++keys}`,
      text,
    };
  }

  /** POST /api/v1/events (one event or a batch); expects 201 and answers the stored events. */
  async post(body: Record<string, unknown> | { events: Record<string, unknown>[] }): Promise<StoredEvent[]> {
    const r = await this.request.post("/api/v1/events", {
      headers: { authorization: `Bearer ${this.ws.token}` },
      data: body,
    });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { events: StoredEvent[] }).events;
  }

  /** Post `n` messages one request each, in order; answers their seqs. */
  async postMessages(n: number, prefix = "msg"): Promise<number[]> {
    const seqs: number[] = [];
    for (let i = 0; i < n; i++) seqs.push(...(await this.post(this.message(`${prefix} ${i + 1}`))).map((e) => e.seq));
    return seqs;
  }

  /** Every stored event of the workspace, ascending (GET …/events, paged by 1000). */
  async events(): Promise<StoredEvent[]> {
    const all: StoredEvent[] = [];
    for (let after = 0; ;) {
      const r = await this.request.get(`/api/v1/workspaces/${this.ws.workspace_id}/events?after=${after}&limit=1000`, {
        headers: { authorization: `Bearer ${this.ws.token}` },
      });
      expect(r.status(), await r.text()).toBe(200);
      const page = (await r.json()) as { events: StoredEvent[]; next_after: number };
      all.push(...page.events);
      if (page.events.length < 1000) return all;
      after = page.next_after;
    }
  }

  /** The seqs stored for this workspace's room, ascending. */
  async roomSeqs(): Promise<number[]> {
    return (await this.events()).filter((e) => e.space_id === this.ws.space_id).map((e) => e.seq);
  }
}
