import { z } from "zod";
import { BudgetBody, BudgetsAnswer } from "../protocol/budget";
import { StoredEvent } from "../protocol/events";
import { DecisionsAnswer, RoomAnswer, RoomRevisionsAnswer } from "../protocol/http";
import { route, storedOrReplay } from "../protocol/route";
import { StartTaskBody, TaskBody, TasksAnswer } from "../protocol/tasks";
import { RunStarted } from "./runs";

/**
 * A room's state (docs/ROOM-STATE.md, docs/PROTOCOL.md §6): its intent, outcome and their
 * history ([ROOM1]) and its decisions ([DEC1]) — saved as events through `POST /api/v1/events` —
 * its tasks ([TSK1]–[TSK4]), and the workspace's harness budgets ([BUD1]–[BUD3]).
 */

const TASKS_FROM_PEOPLE = "tasks come from people: use a session or a person token";
const TASK_WRITER = { kinds: ["person"], may: "write", refusal: TASKS_FROM_PEOPLE } as const;
/** Making a task and editing one take the same body, from the same people. */
const TASK_SAVE = {
  who: TASK_WRITER,
  scope: "space",
  body: { schema: TaskBody, maxBytes: 256 * 1024, what: "bad task" },
} as const;
const taskWrite = ["idempotency_key_reused", "rate_limited", "overloaded"] as const;

export const ROOM_ROUTES = {
  room: route({
    method: "get",
    path: "/api/v1/spaces/:space/room",
    summary: "The room's intent and outcome at its current revision",
    tag: "Rooms",
    who: {},
    scope: "space",
    answers: { 200: { description: "the room", schema: RoomAnswer } },
    errors: [],
  }),
  revisions: route({
    method: "get",
    path: "/api/v1/spaces/:space/revisions",
    summary: "Every revision of the room, oldest first",
    tag: "Rooms",
    who: {},
    scope: "space",
    answers: { 200: { description: "the revisions", schema: RoomRevisionsAnswer } },
    errors: [],
  }),
  decisions: route({
    method: "get",
    path: "/api/v1/spaces/:space/decisions",
    summary: "The room's decisions, active and superseded, oldest first",
    tag: "Rooms",
    who: {},
    scope: "space",
    answers: { 200: { description: "the decisions", schema: DecisionsAnswer } },
    errors: [],
  }),
  tasks: route({
    method: "get",
    path: "/api/v1/spaces/:space/tasks",
    summary: "The room's tasks, each with its status and newest run",
    tag: "Tasks",
    who: {},
    scope: "space",
    answers: { 200: { description: "the tasks", schema: TasksAnswer } },
    errors: [],
  }),
  makeTask: route({
    method: "post",
    path: "/api/v1/spaces/:space/tasks",
    summary: "Make a task; answers the stored `task.saved`",
    tag: "Tasks",
    ...TASK_SAVE,
    answers: storedOrReplay(StoredEvent, "made"),
    errors: [...taskWrite],
  }),
  editTask: route({
    method: "put",
    path: "/api/v1/spaces/:space/tasks/:task",
    summary: "Save an edit of a task (a stale `prompt_version` is `revision_conflict` with the task as it is)",
    tag: "Tasks",
    ...TASK_SAVE,
    answers: storedOrReplay(StoredEvent, "saved"),
    errors: ["task_not_found", "revision_conflict", ...taskWrite],
  }),
  startTask: route({
    method: "post",
    path: "/api/v1/spaces/:space/tasks/:task/start",
    summary: "Start a task's run (refused while prerequisites are unmet or its write scope overlaps a running task's)",
    tag: "Tasks",
    who: TASK_WRITER,
    scope: "space",
    body: { schema: StartTaskBody, maxBytes: 64 * 1024, what: "bad task start" },
    answers: storedOrReplay(RunStarted, "queued"),
    errors: ["task_not_found", "prerequisites_unmet", "scope_overlap", "budget_exhausted", ...taskWrite],
  }),
  budgets: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/budgets",
    summary: "The workspace's budgets with their spend now",
    tag: "Budgets",
    who: {},
    scope: "workspace",
    answers: { 200: { description: "the budgets", schema: BudgetsAnswer } },
    errors: [],
  }),
  setBudget: route({
    method: "put",
    path: "/api/v1/workspaces/:ws/budgets/:subject",
    summary: "Set the limits of a harness, a runner or (`*`) the whole workspace; null is no limit",
    tag: "Budgets",
    who: { may: "manage" },
    scope: "workspace",
    body: { schema: BudgetBody, maxBytes: 4096, what: "bad budget" },
    answers: {
      200: { description: "the limits as set", schema: BudgetBody.extend({ subject: z.string() }) },
    },
    errors: [],
  }),
} as const;
