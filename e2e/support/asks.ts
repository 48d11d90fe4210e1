import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { newId } from "../../lib/core/protocol";
import type { Harness, StoredEvent, Workspace } from "./api";

/** One ask's card (`data-testid="ask-card"`): its buttons, text box, outcome and refusal line. */
export class AskCardView {
  readonly root: Locator;
  constructor(
    scope: Page | Locator,
    readonly askId: string,
  ) {
    this.root = scope.locator(`[data-testid="ask-card"][data-ask-id="${askId}"]`);
  }
  option(id: string): Locator {
    return this.root.locator(`[data-testid="ask-option"][data-option-id="${id}"]`);
  }
  get outcome(): Locator {
    return this.root.getByTestId("ask-outcome");
  }
  get refusal(): Locator {
    return this.root.getByTestId("ask-refusal");
  }
  async expectState(state: string): Promise<void> {
    await expect(this.root).toHaveAttribute("data-ask-state", state);
  }
}

let n = 0;
const key = () => `e2e-ask-${process.pid}-${Date.now()}-${++n}`;

/** Start a run as the workspace's harness (in `spaceId`, default its room); answers its id. */
export async function startRun(harness: Harness, goal: string, spaceId?: string): Promise<string> {
  const runId = newId("run");
  await harness.post({
    v: 1,
    type: "run.started",
    id: newId("event"),
    workspace_id: harness.ws.workspace_id,
    space_id: spaceId ?? harness.ws.space_id,
    run_id: runId,
    actor: { kind: "harness", id: harness.ws.harness_id },
    idempotency_key: key(),
    goal,
  });
  return runId;
}

/** The harness asks on its run ([ASK1]): a permission unless `fields` says otherwise; answers the stored run.asked. */
export async function askOn(
  harness: Harness,
  runId: string,
  fields: Record<string, unknown> = {},
): Promise<StoredEvent> {
  const [stored] = await harness.post({
    v: 1,
    type: "run.asked",
    id: newId("event"),
    workspace_id: harness.ws.workspace_id,
    run_id: runId,
    actor: { kind: "harness", id: harness.ws.harness_id },
    idempotency_key: key(),
    ask_id: newId("ask"),
    kind: "permission",
    tool: "Bash",
    summary: "rm -rf build/",
    command: "rm -rf build/",
    ...fields,
  });
  return stored;
}

/** A second person of the workspace, signed in in `page` by an invite (admin-made): lands logged in. */
export async function joinAs(
  request: APIRequestContext,
  adminToken: string,
  page: Page,
  ws: Workspace,
  role: "member" | "viewer",
  name: string,
): Promise<void> {
  const r = await request.post(`/api/v1/workspaces/${ws.workspace_id}/invites`, {
    headers: { authorization: `Bearer ${adminToken}` },
    data: { role },
  });
  expect(r.status(), await r.text()).toBe(201);
  const code = new URL(((await r.json()) as { url: string }).url).searchParams.get("code")!;
  await page.goto(`/invite?code=${encodeURIComponent(code)}&name=${encodeURIComponent(name)}`);
}

/** The asks of a run as the API serves them. */
export async function runAsks(request: APIRequestContext, ws: Workspace, runId: string) {
  const r = await request.get(`/api/v1/runs/${runId}/asks`, { headers: { authorization: `Bearer ${ws.token}` } });
  return ((await r.json()) as { asks: { ask_id: string; state: string; answer: { person_id: string } | null }[] }).asks;
}
