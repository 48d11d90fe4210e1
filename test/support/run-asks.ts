import { expect } from "vitest";
import { readEvents } from "./api";
import { answer } from "./asks";
import { until } from "./feed";
import type { World } from "./runner-world";

/** A run's asks as the API serves them ([ASK4]), oldest first. */
export async function asksOf(w: World, runId: string): Promise<any[]> {
  const r = await fetch(`${w.server.url}/api/v1/runs/${runId}/asks`, {
    headers: { authorization: `Bearer ${w.ws.person_token}` },
  });
  return ((await r.json()) as { asks: any[] }).asks;
}

/** The n-th ask of the run once it waits for a person (the agent is blocked on it); fails at once if the run ends first. */
export async function waitingAsk(w: World, runId: string, n = 1): Promise<any> {
  let found: any = null;
  try {
    await until(
      async () => {
        const asks = await asksOf(w, runId);
        found = asks.length >= n && ["asked", "shown"].includes(asks[n - 1].state) ? asks[n - 1] : null;
        if (!found && (await w.run(runId)).state === "finished") throw new Error("the run finished first");
        return !!found;
      },
      `ask #${n} of ${runId} waiting for a person`,
      90_000,
    );
  } catch (e) {
    const said = (await w.runnerEvents(runId)).map((x: any) => x.message);
    throw new Error(
      `${(e as Error).message}\nrun: ${JSON.stringify(await w.run(runId)).slice(0, 800)}\nrunner events: ${said.join(" / ").slice(0, 2000)}\nrunner log: ${w.logs.join(" / ").slice(-2000)}`,
      { cause: e },
    );
  }
  return found;
}

/** A person (the workspace's owner) answers, through the same API the room's buttons call. */
export async function answerAs(w: World, runId: string, askId: string, body: Record<string, unknown>) {
  const r = await answer(w.server, runId, askId, body, { token: w.ws.person_token });
  expect(r.status, r.text).toBe(201);
}

/** The run's ask events in log order, `type[:result][:reason]`. */
export async function askTrail(w: World, runId: string): Promise<string[]> {
  return (await readEvents(w.server, w.ws))
    .filter((e: any) => e.run_id === runId && /^run\.(asked|ask_|answer)/.test(e.type))
    .map((e: any) => `${e.type}${e.result ? `:${e.result}` : ""}${e.reason ? `:${e.reason}` : ""}`);
}

/** The worktree a runner job works in. */
export const worktreeOf = async (w: World, runId: string) =>
  (await w.runnerEvents(runId)).find((e: any) => e.kind === "started").payload.worktree as string;
