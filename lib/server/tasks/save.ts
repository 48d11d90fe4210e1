import { newId, problem, type IncomingEvent, type ProblemError, type TaskBody } from "@/lib/core/protocol";
import type { Tasks } from "@/lib/core/projection/tasks";
import type { Credential } from "../credentials";
import { canonicalJson, sha256 } from "../hash";
import type { IngestAnswer } from "../ingest/post-events";
import type { ChipsServices } from "../services";
import { roomTasks, storedByKey } from "@/lib/server/queries/tasks";
import { AgentName, providerRefused } from "@/lib/core/protocol/runner-contract";

const invalid = (detail: string, pointer: string): ProblemError =>
  problem("validation_failed", detail, [{ pointer, message: detail }]);

/** A prerequisite that is no task of the room, the task itself, or that closes a cycle ([TSK1]). */
function prerequisiteProblem(tasks: Tasks, taskId: string, prerequisites: string[]): ProblemError | null {
  for (const [i, p] of prerequisites.entries()) {
    if (p === taskId) return invalid("a task cannot be its own prerequisite", `/prerequisites/${i}`);
    if (!tasks[p]) return invalid("no such task in this room", `/prerequisites/${i}`);
  }
  // A cycle: from a prerequisite, following prerequisites, we come back to this task.
  const seen = new Set<string>();
  const stack = [...prerequisites];
  while (stack.length) {
    const id = stack.pop()!;
    if (id === taskId) return invalid("these prerequisites would make a cycle", "/prerequisites");
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(tasks[id]?.prerequisites ?? []));
  }
  return null;
}

/** [RN5] A provider default for an agent that takes none (the start would refuse it). */
function providerProblem(body: TaskBody): ProblemError | null {
  const agent = AgentName.safeParse(body.agent ?? "codex");
  const why = body.provider !== undefined && agent.success && providerRefused(agent.data);
  return why ? invalid(why, "/provider") : null;
}

/**
 * A person makes (`taskId` null) or edits a task of a room ([TSK1]): checked against the room's
 * tasks, then appended as `task.saved` through the one writer with that person as its actor.
 * An edit based on an older prompt version is `409 revision_conflict` with the task as it is.
 * A retry with the same key answers what the first stored.
 */
export async function saveTask(
  svc: Pick<ChipsServices, "db" | "writer">,
  cred: Credential,
  space: { id: string; workspaceId: string },
  taskId: string | null,
  body: TaskBody,
): Promise<IngestAnswer> {
  const known = await storedByKey(svc.db, space.workspaceId, body.idempotency_key);
  const tasks = await roomTasks(svc.db, space.workspaceId, space.id);
  const id = taskId ?? (known?.type === "task.saved" ? known.task_id : newId("task"));
  const current = taskId ? tasks[taskId] : undefined;
  if (!known) {
    if (taskId && !current) return { ok: false, problem: problem("task_not_found", "no such task in this room") };
    const bad = prerequisiteProblem(tasks, id, body.prerequisites) ?? providerProblem(body);
    if (bad) return { ok: false, problem: bad };
    if (current && body.prompt_version !== undefined && body.prompt_version !== current.prompt_version) {
      const detail = `the task's prompt is at version ${current.prompt_version}: this edit was based on version ${body.prompt_version}`;
      return {
        ok: false,
        problem: {
          ...problem("revision_conflict", detail, [{ pointer: "/prompt_version", message: detail }]),
          extensions: { current },
        },
      };
    }
  }
  const { idempotency_key, prompt_version: _based, ...fields } = body;
  const version = !current ? 1 : current.prompt === body.prompt ? current.prompt_version : current.prompt_version + 1;
  const event = {
    v: 1,
    type: "task.saved",
    id: newId("event"),
    workspace_id: space.workspaceId,
    space_id: space.id,
    task_id: id,
    ...fields,
    prompt_version: version,
    idempotency_key,
  } as IncomingEvent;
  // Ids and the version are the server's: a retry is the same save when the person and what they asked match.
  const hash = sha256(
    canonicalJson({ space: space.id, task: taskId, body: fields, key: idempotency_key, by: cred.subjectId }),
  );
  const r = await svc.writer.submit(space.workspaceId, {
    credential: cred,
    events: [event],
    hashes: [hash],
    pointers: [""],
  });
  return r.ok ? { ok: true, status: r.created ? 201 : 200, body: r.bodies[0] } : r;
}
