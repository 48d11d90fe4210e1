import { z } from "zod";
import { Role } from "../protocol/http";
import { route } from "../protocol/route";
import { HarnessRow, InviteRow, PersonRow } from "../views/people";

/**
 * People and their access (docs/ROLES.md): who is in a workspace, invites by link with a role,
 * and revoking a person, harness, runner or one token — which closes what it opened at once,
 * open sockets included, on every node. All of it an owner's (or the admin's), but the list of people.
 */

/** Everything an owner manages on one page. */
const Access = z.object({
  people: z.array(PersonRow),
  harnesses: z.array(HarnessRow),
  invites: z.array(InviteRow),
});

const InviteBody = z.object({
  role: Role,
  /** Single-use (default) or good for anyone until it expires. */
  single_use: z.boolean().default(true),
  expires_in_seconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .default(7 * 24 * 3600),
});

const OWNER = { kinds: ["admin", "person"], may: "manage" } as const;
const revoked = z.object({ revoked: z.string() });

export const PEOPLE_ROUTES = {
  people: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/people",
    summary: "The workspace's people (not revoked), oldest first",
    tag: "People and access",
    who: { kinds: ["admin", "person"] },
    scope: "workspace",
    answers: {
      200: {
        description: "the people",
        schema: z.object({
          people: z.array(z.object({ id: z.string(), name: z.string(), role: z.string(), created_at: z.string() })),
        }),
      },
    },
    errors: [],
  }),
  access: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/access",
    summary: "People with their tokens and last use, harnesses and runners with theirs, open invites",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: { 200: { description: "who has access", schema: Access } },
    errors: [],
  }),
  harnesses: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/harnesses",
    summary: "Harnesses and runners with their tokens",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: { 200: { description: "them", schema: z.object({ harnesses: z.array(HarnessRow) }) } },
    errors: [],
  }),
  invite: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/invites",
    summary: "An invite link with a role (single-use unless said; a week unless said)",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    body: { schema: InviteBody, maxBytes: 16 * 1024, what: "bad invite", nullAs: {} },
    answers: {
      201: {
        description: "the link",
        schema: z.object({
          invite_id: z.string(),
          url: z.string(),
          role: Role,
          single_use: z.boolean(),
          expires_at: z.string(),
        }),
      },
    },
    errors: [],
  }),
  withdrawInvite: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/invites/:invite",
    summary: "Withdraw an invite: its link goes to the login page from now on",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: { 200: { description: "withdrawn", schema: z.object({ withdrawn: z.string() }) } },
    errors: ["not_found"],
  }),
  changeRole: route({
    method: "patch",
    path: "/api/v1/workspaces/:ws/people/:person",
    summary: "Change a person's role (the last owner cannot step down)",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    body: { schema: z.object({ role: Role }), maxBytes: 16 * 1024, what: "bad role change", nullAs: {} },
    answers: { 200: { description: "the new role", schema: z.object({ id: z.string(), role: Role }) } },
    errors: ["not_found", "invalid_transition"],
  }),
  revokePerson: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/people/:person",
    summary: "Revoke a person: every session and token of theirs stops at once (not the last owner)",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: { 200: { description: "revoked", schema: revoked } },
    errors: ["not_found", "invalid_transition"],
  }),
  harnessToken: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/harnesses/:harness/tokens",
    summary: "Another token for a harness or runner (to rotate one: mint, switch, revoke the old)",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: {
      201: {
        description: "the token, shown this once",
        schema: z.object({ token_id: z.string(), token: z.string(), harness_id: z.string() }),
      },
    },
    errors: ["not_found"],
  }),
  revokeHarness: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/harnesses/:harness",
    summary: "Revoke a harness or runner: its tokens stop and its sockets close at once",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: { 200: { description: "revoked", schema: revoked } },
    errors: ["not_found"],
  }),
  revokeToken: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/tokens/:token",
    summary: "Revoke one token, leaving its holder's others: what it opened closes at once",
    tag: "People and access",
    who: OWNER,
    scope: "workspace",
    answers: { 200: { description: "revoked", schema: revoked } },
    errors: ["not_found"],
  }),
} as const;
