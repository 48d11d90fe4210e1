import { canonicalId, isId, problem, problemAt } from "@/lib/core/protocol";
import { WORKSPACE_SUBJECT } from "@/lib/core/projection/budget";
import { ROOM_ROUTES } from "@/lib/core/routes";
import { getRoom, listDecisions, roomRevisions } from "@/lib/server/queries/rooms";
import { listTasks } from "@/lib/server/queries/tasks";
import { budgetsNow } from "@/lib/server/queries/budgets";
import { harnessIn } from "@/lib/server/queries/people";
import { setBudget } from "../budgets";
import { saveTask } from "../tasks/save";
import { startTask } from "../tasks/start";
import type { ChipsServices } from "../services";
import type { Handlers } from "./adapter";

const noTask = () => problem("task_not_found", "no such task in this room");

/**
 * The handlers of lib/core/routes/rooms.ts: a room's state and decisions, its tasks
 * ([TSK1]–[TSK4]: a replay is answered before the room's rules), and budgets ([BUD2]).
 */
export function roomHandlers(svc: Pick<ChipsServices, "database" | "db" | "writer">): Handlers<typeof ROOM_ROUTES> {
  return {
    room: async ({ space }) => ({ status: 200, body: { room: await getRoom(svc.db, space.workspaceId, space.id) } }),
    revisions: async ({ space }) => ({
      status: 200,
      body: { revisions: await roomRevisions(svc.db, space.workspaceId, space.id) },
    }),
    decisions: async ({ space }) => ({
      status: 200,
      body: { decisions: await listDecisions(svc.db, space.workspaceId, space.id) },
    }),

    tasks: async ({ space }) => ({
      status: 200,
      body: { tasks: await listTasks(svc.db, space.workspaceId, space.id) },
    }),
    makeTask: async ({ cred, space, body }) => {
      const r = await saveTask(svc, cred, space, null, body);
      return r.ok ? { status: r.status, raw: r.body } : r.problem;
    },
    editTask: async ({ cred, space, body, params }) => {
      if (!isId("task", params.task)) return noTask();
      const r = await saveTask(svc, cred, space, canonicalId(params.task), body);
      return r.ok ? { status: r.status, raw: r.body } : r.problem;
    },
    startTask: async ({ cred, space, body, params }) => {
      if (!isId("task", params.task)) return noTask();
      const r = await startTask(svc, cred, space, canonicalId(params.task), body);
      if (!r.ok) return r.problem;
      return { status: r.status, raw: `{"run_id":${JSON.stringify(r.runId)},"events":[${r.bodies.join(",")}]}` };
    },

    // The writer keeps the spend and enforces the limits ([BUD1]).
    budgets: async ({ ws }) => ({ status: 200, body: { budgets: await budgetsNow(svc.database, ws) } }),
    setBudget: async ({ cred, ws, body, params }) => {
      let subject = WORKSPACE_SUBJECT;
      if (params.subject !== WORKSPACE_SUBJECT) {
        const raw = params.subject;
        const id = isId("harness", raw) || isId("runner", raw) ? canonicalId(raw) : null;
        const h = id ? await harnessIn(svc.db, ws, id) : null;
        if (!h)
          return problemAt(
            "validation_failed",
            "the subject is a harness or runner of this workspace, or * for the whole workspace",
            "/path/subject",
          );
        subject = h.id;
      }
      await setBudget(svc.database, { workspaceId: ws, subject, body, setBy: cred.subjectId });
      return { status: 200, body: { subject, ...body } };
    },
  };
}
