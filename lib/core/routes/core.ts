import { z } from "zod";
import { LIMITS } from "../protocol/limits";
import { isId } from "../protocol/ids";
import { Run } from "../protocol/models";
import { count, route } from "../protocol/route";
import {
  EventsAnswer,
  EventsBody,
  EventsPage,
  LoginLinkBody,
  Me,
  NameBody,
  RunsAnswer,
  WorkspaceBody,
  WorkspaceCreated,
} from "../protocol/http";

/**
 * The core of the HTTP API (docs/API.md, docs/PROTOCOL.md §4): health, the schemas, who a
 * credential is, the event log in and out, run read models, and setting up workspaces.
 */

const anyJson = z.record(z.string(), z.unknown());

/** `/api/v1/health`, `/health/ready`: whether this node serves (docs/OPERATIONS.md). */
const Health = z.object({
  ok: z.boolean(),
  db: z.enum(["pglite", "postgres"]),
  live: z.literal(true),
  ready: z.boolean(),
  /** Why not ready: the database, or a server shutting down (from its signal on, [OPS4]). */
  state: z.enum(["ready", "unavailable", "shutting_down"]),
  /** Left out while shutting down. */
  storage: z.enum(["reachable", "unreachable"]).optional(),
  migrations: z.enum(["current", "pending", "unknown"]).optional(),
  /** The migrations this build has that the database lacks. */
  pending: z.array(z.string()).optional(),
});

const ready = (path: string) =>
  route({
    method: "get",
    path,
    summary: "Ready: the database answers and has every migration of this build (503 otherwise)",
    tag: "Health",
    who: { open: true },
    answers: {
      200: { description: "ready", schema: Health },
      503: { description: "not ready: what is missing", schema: Health },
    },
    errors: [],
  });

export const CORE_ROUTES = {
  live: route({
    method: "get",
    path: "/api/v1/health/live",
    summary: "Live: the process serves at all",
    tag: "Health",
    who: { open: true },
    answers: { 200: { description: "live", schema: z.object({ ok: z.literal(true), live: z.literal(true) }) } },
    errors: [],
  }),
  health: ready("/api/v1/health"),
  ready: ready("/api/v1/health/ready"),
  openapi: route({
    method: "get",
    path: "/api/v1/openapi.json",
    summary: "This API as an OpenAPI 3.1 document, made from the route table",
    tag: "Schemas",
    who: { open: true },
    answers: { 200: { description: "the OpenAPI document", schema: anyJson } },
    errors: [],
  }),
  schemas: route({
    method: "get",
    path: "/schemas",
    summary: "The JSON Schemas of the events, by URL",
    tag: "Schemas",
    who: { open: true },
    answers: { 200: { description: "their URLs", schema: z.object({ schemas: z.array(z.string()) }) } },
    errors: [],
  }),
  schema: route({
    method: "get",
    path: "/schemas/:file",
    summary: "One event type's JSON Schema (`run.status.json`), or the envelope's (`envelope.json`)",
    tag: "Schemas",
    who: { open: true },
    answers: { 200: { description: "a JSON Schema (draft 2020-12)", schema: anyJson } },
    errors: ["not_found"],
  }),
  me: route({
    method: "get",
    path: "/api/v1/me",
    summary: "Who this credential is (a person with their role) and its workspace's rooms",
    tag: "Events",
    who: {},
    answers: { 200: { description: "the credential", schema: Me } },
    errors: [],
  }),
  postEvents: route({
    method: "post",
    path: "/api/v1/events",
    summary: "Post one event or an all-or-nothing batch ([HTTP1]); the checks run in [HTTP2]'s order",
    tag: "Events",
    who: { may: "write" },
    body: { schema: EventsBody, maxBytes: LIMITS.bodyBytes, judged: true },
    answers: {
      200: { description: "every event was a replay of its idempotency key", schema: EventsAnswer },
      201: { description: "stored, in the order sent", schema: EventsAnswer },
    },
    errors: [
      "unsupported_version",
      "unknown_type",
      "idempotency_key_reused",
      "event_id_conflict",
      "space_not_found",
      "run_not_found",
      "run_exists",
      "run_finished",
      "run_paused",
      "invalid_transition",
      "sequence_conflict",
      "command_pending",
      "command_not_supported",
      "run_not_taken",
      "ask_not_found",
      "ask_closed",
      "revision_conflict",
      "budget_exhausted",
      "rate_limited",
      "overloaded",
    ],
  }),
  workspaceEvents: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/events",
    summary: "The log after a seq, ascending (catch-up)",
    tag: "Events",
    who: {},
    scope: "workspace",
    query: z.object({
      after: count("after", 0),
      limit: count("limit", 100, 1000),
      space: z
        .string()
        .refine((s) => isId("space", s), "space must be a space id")
        .optional(),
    }),
    answers: { 200: { description: "a page of the log", schema: EventsPage } },
    errors: [],
  }),
  workspaceRuns: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/runs",
    summary: "The workspace's runs as the room draws them (one room's with `space`)",
    tag: "Runs",
    who: {},
    scope: "workspace",
    query: z.object({ space: z.string().optional() }),
    answers: { 200: { description: "the runs", schema: RunsAnswer } },
    errors: [],
  }),
  run: route({
    method: "get",
    path: "/api/v1/runs/:run",
    summary: "One run's read model",
    tag: "Runs",
    who: {},
    scope: "run",
    answers: { 200: { description: "the run", schema: Run } },
    errors: [],
  }),
  createWorkspace: route({
    method: "post",
    path: "/api/v1/admin/workspaces",
    summary: "A workspace with a room, a harness and its owner (what `chips init` calls)",
    tag: "Workspaces",
    who: { kinds: ["admin"], refusal: "this needs the admin token" },
    body: { schema: WorkspaceBody, maxBytes: 64 * 1024, what: "bad workspace request", nullAs: {} },
    answers: { 201: { description: "made; the tokens are shown this once", schema: WorkspaceCreated } },
    errors: [],
  }),
  loginLink: route({
    method: "post",
    path: "/api/v1/admin/login-links",
    summary: "A fresh one-time login link for a workspace's owner (what `chips login` calls)",
    tag: "Workspaces",
    who: { kinds: ["admin"], refusal: "this needs the admin token" },
    body: { schema: LoginLinkBody, maxBytes: 64 * 1024, what: "bad login-link request", nullAs: {} },
    answers: { 201: { description: "the link", schema: z.object({ workspace_id: z.string(), url: z.string() }) } },
    errors: ["workspace_not_found"],
  }),
  createSpace: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/spaces",
    summary: "Open a room",
    tag: "Workspaces",
    who: { kinds: ["admin", "person"], may: "write" },
    scope: "workspace",
    body: { schema: NameBody, maxBytes: 64 * 1024, what: "bad space request" },
    answers: {
      201: {
        description: "the room and its link",
        schema: z.object({ id: z.string(), workspace_id: z.string(), name: z.string(), room_url: z.string() }),
      },
    },
    errors: [],
  }),
  createHarness: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/harnesses",
    summary: "Add a harness or runner and its token",
    tag: "People and access",
    who: { kinds: ["admin", "person"], may: "manage" },
    scope: "workspace",
    body: { schema: NameBody, maxBytes: 64 * 1024, what: "bad harness request" },
    answers: {
      201: {
        description: "its id and token, shown this once",
        schema: z.object({ harness_id: z.string(), token: z.string() }),
      },
    },
    errors: [],
  }),
} as const;
