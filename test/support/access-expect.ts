import { key, type Workspace } from "./api";

/**
 * What the role matrix's rows (test/support/access-rows*.ts) are written in: who asks, what
 * each gets back, and the fresh targets a row may make for its one request.
 */
export const WHO = ["owner", "member", "viewer", "revoked", "other", "token"] as const;
export type Who = (typeof WHO)[number];
export type Expect = Record<Who, number>;

export interface Ctx {
  ws: Workspace;
  runId: string;
  /** A member of ws made for this one request (a target to revoke). */
  freshPerson(): Promise<string>;
  freshHarness(): Promise<string>;
  freshInvite(): Promise<string>;
  /** A new token of a new harness: its public id. */
  freshToken(): Promise<string>;
  /** A share link of the run made by the member (its creator) for this one request. */
  freshShare(): Promise<string>;
  /** A task of its own scope made by the member for this one request. */
  freshTask(): Promise<string>;
  /** A permission the run's harness asks for this one request ([ASK1]): its id. */
  freshAsk(): Promise<string>;
  /** A webhook of the workspace made by the admin for this one request ([ASK7]): its id. */
  freshWebhook(): Promise<string>;
}
export interface Row {
  req: (c: Ctx) => Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown };
  expect: Expect;
}

export const all = (n: number): Expect => ({ owner: n, member: n, viewer: n, revoked: n, other: n, token: n });
export const read = (otherStatus: number): Expect => ({
  owner: 200,
  member: 200,
  viewer: 200,
  revoked: 401,
  other: otherStatus,
  token: 200,
});
export const write = (ok: number, otherStatus = 403): Expect => ({
  owner: ok,
  member: ok,
  viewer: 403,
  revoked: 401,
  other: otherStatus,
  token: ok,
});
export const manage = (ok: number): Expect => ({
  owner: ok,
  member: 403,
  viewer: 403,
  revoked: 401,
  other: 403,
  token: ok,
});
export const nobody = (): Expect => ({ owner: 403, member: 403, viewer: 403, revoked: 401, other: 403, token: 403 });
export const SHA = "a".repeat(64);
/** A task of its own scope (so starting it overlaps no other row's), made by the member. */
export const aTask = () => ({
  title: "t",
  prompt: "p",
  repository: "r",
  write_scope: [`${key()}/**`],
  idempotency_key: key(),
});
