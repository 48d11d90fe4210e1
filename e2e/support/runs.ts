import type { APIRequestContext } from "@playwright/test";
import { expect } from "@playwright/test";
import { newId, type CommandName } from "../../lib/core/protocol";
import type { Harness, StoredEvent, Workspace } from "./api";

let n = 0;
const key = () => `e2e-run-${process.pid}-${Date.now()}-${++n}`;

/** A run of the workspace's harness, driven event by event through the real API. */
export class TestRun {
  readonly id = newId("run");
  constructor(
    private harness: Harness,
    private ws: Workspace,
  ) {}

  private event(type: string, fields: Record<string, unknown>) {
    return {
      v: 1,
      type,
      id: newId("event"),
      workspace_id: this.ws.workspace_id,
      run_id: this.id,
      actor: { kind: "harness", id: this.ws.harness_id },
      idempotency_key: key(),
      ...fields,
    };
  }

  start(fields: {
    goal: string;
    plan?: { step_id: string; title: string }[];
    goal_from?: "harness" | "chips";
    session_ref?: string;
    commands?: CommandName[];
  }): Promise<StoredEvent[]> {
    return this.harness.post(this.event("run.started", { space_id: this.ws.space_id, ...fields }));
  }
  status(fields: {
    verb_phrase: string;
    phase?: string;
    progress?: number;
    estimate_seconds?: number;
    usage?: { input_tokens: number; output_tokens: number; cost_usd?: number };
  }) {
    return this.harness.post(this.event("run.status", { phase: "working", ...fields }));
  }
  step(step_id: string, state: "active" | "done" | "failed" | "skipped", title?: string) {
    return this.harness.post(this.event("run.step", { step_id, state, ...(title ? { title } : {}) }));
  }
  finish(outcome: "succeeded" | "failed" | "cancelled" = "succeeded", summary?: string) {
    return this.harness.post(this.event("run.finished", { outcome, ...(summary ? { summary } : {}) }));
  }
  ack(command_id: string, result: "applied" | "rejected" = "applied") {
    return this.harness.post(this.event("run.command_acked", { command_id, result }));
  }
}

/** A person's API calls (their API token), e.g. a message or a command. */
export class Person {
  constructor(
    private request: APIRequestContext,
    private ws: Workspace,
  ) {}

  async message(text: string): Promise<StoredEvent> {
    const r = await this.request.post("/api/v1/events", {
      headers: { authorization: `Bearer ${this.ws.person_token}` },
      data: {
        v: 1,
        type: "message.posted",
        id: newId("event"),
        workspace_id: this.ws.workspace_id,
        space_id: this.ws.space_id,
        idempotency_key: key(),
        text,
      },
    });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { events: StoredEvent[] }).events[0];
  }

  async command(
    runId: string,
    command: "pause" | "resume" | "cancel" | "steer",
    text?: string,
  ): Promise<{ command_id: string; seq: number }> {
    const r = await this.request.post(`/api/v1/runs/${runId}/commands`, {
      headers: { authorization: `Bearer ${this.ws.person_token}` },
      data: { command, ...(text ? { text } : {}), idempotency_key: key() },
    });
    expect(r.status(), await r.text()).toBe(201);
    return r.json();
  }
}

/**
 * The run an agent started for `goal` (its newest), once the room has one within `ms`: a
 * prompt typed into a real CLI becomes a run when its session log or hook reaches Chips.
 */
export async function runOf(harness: Harness, goal: string, ms?: number): Promise<string> {
  let id = "";
  await expect
    .poll(
      async () =>
        (id =
          ((await harness.events()).filter((e) => e.type === "run.started" && e.goal === goal).at(-1)
            ?.run_id as string) ?? ""),
      { message: `a run for "${goal}"`, timeout: ms },
    )
    .not.toBe("");
  return id;
}

/** Until the room holds `runId`'s run.finished (within `ms`). */
export async function runFinished(harness: Harness, runId: string, ms?: number): Promise<void> {
  await expect
    .poll(async () => (await harness.events()).some((e) => e.type === "run.finished" && e.run_id === runId), {
      message: `run.finished of ${runId}`,
      timeout: ms,
    })
    .toBe(true);
}
