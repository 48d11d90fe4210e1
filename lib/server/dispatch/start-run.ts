import { clipUtf8, LIMITS, newId, problem, type IncomingEvent, type TaskSnapshot } from "@/lib/core/protocol";
import { providerRefused, type StartRunBody } from "@/lib/core/protocol/runner-contract";
import type { Credential } from "../credentials";
import { canonicalJson, sha256 } from "../hash";
import type { ChipsServices } from "../services";

export type StartRunAnswer =
  { ok: true; status: 200 | 201; runId: string; bodies: string[] } | { ok: false; problem: ReturnType<typeof problem> };

/**
 * A person starts a run from a room (`POST /api/v1/runs`, §5): their prompt is posted as
 * their message, and the run is queued with `goal_from: "chips"` (the goal is already on
 * screen, [UI3]) — both in one all-or-nothing request. A retry with the same key answers
 * what the first stored. A task's run ([TSK3]) also carries the snapshot its start request freezes.
 */
export async function startRun(
  svc: Pick<ChipsServices, "writer">,
  cred: Credential,
  body: StartRunBody,
  task?: TaskSnapshot,
): Promise<StartRunAnswer> {
  if (cred.kind !== "person")
    return { ok: false, problem: problem("forbidden", "runs are started by people: use a session or a person token") };
  // [RN5] Claude Code has no provider to pick: its endpoint is the runner's own configuration.
  const noProvider = body.provider !== undefined && providerRefused(body.agent);
  if (noProvider)
    return {
      ok: false,
      problem: problem("validation_failed", noProvider, [{ pointer: "/provider", message: noProvider }]),
    };
  const runId = newId("run");
  const { space_id, prompt, idempotency_key, ...request } = body;
  // [LIM1] The prompt is the agent's instructions and may be long; the goal is a line of the
  // room with a limit of its own. A cut goal keeps the whole prompt in the request for the runner.
  const goal = clipUtf8(prompt, LIMITS.goal);
  const message = {
    v: 1,
    type: "message.posted",
    id: newId("event"),
    workspace_id: cred.workspaceId,
    space_id,
    text: prompt,
    idempotency_key: `${idempotency_key}/prompt`,
  } as IncomingEvent;
  const queued = {
    v: 1,
    type: "run.queued",
    id: newId("event"),
    workspace_id: cred.workspaceId,
    space_id,
    run_id: runId,
    goal,
    goal_from: "chips",
    request: {
      ...request,
      ...(request.model === undefined ? {} : { model: request.model }),
      ...(goal === prompt ? {} : { prompt }),
      ...(task ? { task } : {}),
    },
    idempotency_key,
  } as IncomingEvent;
  // Ids are the server's: a retry is "the same" when the person and what they asked match.
  // A task's retry is the same start of the same task, whatever the room has become since.
  const same = canonicalJson({
    space_id,
    prompt,
    request,
    key: idempotency_key,
    by: cred.subjectId,
    ...(task ? { task: task.task_id } : {}),
  });
  const r = await svc.writer.submit(cred.workspaceId, {
    credential: cred,
    events: [message, queued],
    hashes: [sha256(`prompt:${same}`), sha256(`queued:${same}`)],
    pointers: ["", ""],
  });
  if (!r.ok) return r;
  const stored = JSON.parse(r.bodies[1]) as { run_id: string };
  return { ok: true, status: r.created ? 201 : 200, runId: stored.run_id, bodies: r.bodies };
}
