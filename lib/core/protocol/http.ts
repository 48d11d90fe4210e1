import { z } from "zod";
import { canonicalId, isId } from "./ids";
import { LIMITS } from "./limits";
import { text } from "./fields";
import { CommandName, NamedIncomingEvent, StoredEvent } from "./events";
import { Decision, Receipt, RoomRevision, Run } from "./models";

/**
 * The bodies of the HTTP API (docs/API.md): what each endpoint takes (zod schemas, parsed
 * at the boundary) and answers (types). Event bodies are events.ts's; read models are
 * models.ts's; `POST /api/v1/runs` takes lib/core/protocol/runner-contract.ts's StartRunBody (the runner contract).
 */

/** `POST /api/v1/runs/:run/commands`: a person's command ([RUN1]). */
export const CommandBody = z
  .object({
    command: CommandName,
    text: text(LIMITS.text).optional(),
    idempotency_key: z.string().min(1).max(LIMITS.idempotencyKey),
  })
  .superRefine((b, ctx) => {
    if (b.command === "steer" && !b.text)
      ctx.addIssue({ code: "custom", path: ["text"], message: "required for steer" });
  });
export type CommandBody = z.infer<typeof CommandBody>;

/** `POST /api/v1/admin/workspaces`: a workspace with a room, a harness and its owner (`chips init`). */
export const WorkspaceBody = z.object({
  workspace: z.string().max(200).optional(),
  space: z.string().max(200).optional(),
  harness: z.string().max(200).optional(),
  owner: z.string().max(200).optional(),
});
export type WorkspaceBody = z.infer<typeof WorkspaceBody>;

/** `POST /api/v1/admin/login-links`: a one-time login link to a workspace, or to one of its rooms. */
export const LoginLinkBody = z
  .object({ workspace_id: z.string().optional(), space_id: z.string().optional() })
  .transform((b, ctx) => {
    for (const [k, kind] of [
      ["workspace_id", "workspace"],
      ["space_id", "space"],
    ] as const) {
      if (b[k] !== undefined && !isId(kind, b[k]))
        ctx.addIssue({ code: "custom", path: [k], message: `must be a ${kind} id` });
    }
    return {
      workspace_id: b.workspace_id && canonicalId(b.workspace_id),
      space_id: b.space_id && canonicalId(b.space_id),
    };
  });

/** `POST /api/v1/workspaces/:ws/spaces` and `…/harnesses`: a name (and, for a harness, its kind). */
export const NameBody = z.object({ name: z.string().min(1).max(200), kind: z.enum(["harness", "runner"]).optional() });

/**
 * What `POST /api/v1/admin/workspaces` (and `chips init --json`) answers: a workspace with
 * one room, one harness and its owner. The tokens are shown once and stored hashed.
 */
export const WorkspaceCreated = z.object({
  workspace_id: z.string(),
  space_id: z.string(),
  harness_id: z.string(),
  /** The harness's bearer token. */
  token: z.string(),
  person_id: z.string(),
  /** The owner's person API token (commands, person writes from scripts). */
  person_token: z.string(),
  /** A one-time login link to the room. */
  room_url: z.string(),
});
export type WorkspaceCreated = z.infer<typeof WorkspaceCreated>;

/** A person's role in a workspace (docs/ROLES.md): what the server lets them do. */
export const Role = z.enum(["owner", "member", "viewer"]);
export type Role = z.infer<typeof Role>;

/** A room of a workspace, as lists name it. */
export const SpaceRef = z.object({ id: z.string(), name: z.string() });

/** `GET /api/v1/me`: who a credential is, and its workspace's rooms. */
export const Me = z.object({
  kind: z.enum(["harness", "runner", "person", "admin"]),
  /** The harness (`hrn_…`), runner (`rnr_…`) or person (`usr_…`) id. */
  id: z.string(),
  workspace_id: z.string().optional(),
  /** A person's role in the workspace (what they may do); absent for harnesses, runners and the admin. */
  role: Role.optional(),
  /** The workspace's rooms, oldest first. */
  spaces: z.array(SpaceRef).optional(),
});
export type Me = z.infer<typeof Me>;

/** `POST /api/v1/events`: one event, or a batch of at most 500 ([HTTP1]). */
export const EventsBody = z.union([NamedIncomingEvent, z.object({ events: z.array(NamedIncomingEvent) })]);

/** `POST /api/v1/events`: the stored events, in the order sent ([HTTP1]). */
export const EventsAnswer = z.object({ events: z.array(StoredEvent) });
export type EventsAnswer = z.infer<typeof EventsAnswer>;

/** `GET /api/v1/workspaces/:ws/events`: a page of the log, ascending. */
export const EventsPage = z.object({ events: z.array(StoredEvent), next_after: z.number().int() });
export type EventsPage = z.infer<typeof EventsPage>;

/** `GET /api/v1/workspaces/:ws/runs`. `GET /api/v1/runs/:run` answers one {@link Run}. */
export const RunsAnswer = z.object({ runs: z.array(Run) });
export type RunsAnswer = z.infer<typeof RunsAnswer>;

/** `GET /api/v1/runs/:run/commands`: a run's state and its commands' receipts, oldest first. */
export const RunCommandsAnswer = z.object({
  run_id: z.string(),
  state: Run.shape.state,
  pending: Run.shape.pending,
  outcome: Run.shape.outcome,
  commands: z.array(Receipt),
});
export type RunCommandsAnswer = z.infer<typeof RunCommandsAnswer>;

/** `GET /api/v1/commands?after=`: a harness's runs' commands, as stored `run.command` events. */
export const CommandsPage = z.object({ commands: z.array(StoredEvent), next_after: z.number().int() });

/** `GET /api/v1/spaces/:space/room`: the room's intent and outcome at its current revision ([ROOM1]). */
export const RoomAnswer = z.object({ room: RoomRevision });
export type RoomAnswer = z.infer<typeof RoomAnswer>;

/** `GET /api/v1/spaces/:space/revisions`: every revision of the room, oldest first. */
export const RoomRevisionsAnswer = z.object({ revisions: z.array(RoomRevision) });
export type RoomRevisionsAnswer = z.infer<typeof RoomRevisionsAnswer>;

/** `GET /api/v1/spaces/:space/decisions`: the room's decisions, active and superseded, oldest first. */
export const DecisionsAnswer = z.object({ decisions: z.array(Decision) });
export type DecisionsAnswer = z.infer<typeof DecisionsAnswer>;
