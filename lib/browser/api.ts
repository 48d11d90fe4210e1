import { ulid } from "ulid";
import {
  fillPath,
  type BodyOf,
  type CommandName,
  type OkAnswer,
  type PathParams,
  type QueryOf,
  type RouteDecl,
} from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import type { OnlineRunner } from "@/lib/core/routes/runs";

/**
 * The browser's one door to the HTTP API (docs/API.md): same origin, the session cookie,
 * JSON. Components and pages never `fetch` themselves (`npm run lint` refuses it); they call
 * the typed functions here or in the `*-api.ts` files built on `call`, whose request and
 * answer types are the route table's (lib/core/routes). A refusal is thrown
 * as an `ApiError` carrying the problem+json (RFC 9457) code and the fields at fault.
 */

/** One field at fault in a refusal: a JSON pointer into the request body and what is wrong. */
export interface FieldProblem {
  pointer: string;
  message: string;
}

export class ApiError extends Error {
  /** HTTP status; 0 when Chips was not reached. */
  readonly status: number;
  /** The problem's stable code; `unreachable` when there was no answer, `http_<status>` when it was not problem+json. */
  readonly code: string;
  /** The problem's sentence for people, when the server gave one. */
  readonly detail: string | undefined;
  readonly errors: FieldProblem[];
  /** The whole problem body (some carry more, e.g. the room as it now is on a revision conflict). */
  readonly problem: Readonly<Record<string, unknown>>;

  constructor(status: number, problem: Record<string, unknown> | null) {
    const detail = typeof problem?.detail === "string" ? problem.detail : undefined;
    super(detail ?? (status ? `Refused (${status}).` : "Could not reach Chips."));
    this.name = "ApiError";
    this.status = status;
    this.code = typeof problem?.code === "string" ? problem.code : status ? `http_${status}` : "unreachable";
    this.detail = detail;
    this.errors = Array.isArray(problem?.errors) ? problem.errors.filter(isFieldProblem) : [];
    this.problem = problem ?? {};
  }

  /** True when Chips did not answer at all (offline, connection lost). */
  get unreachable(): boolean {
    return this.status === 0;
  }

  /** The top-level body field at fault first: `/base_branch` → `base_branch`. */
  get field(): string | undefined {
    return this.fields[0];
  }

  /** Every top-level body field at fault, in the order the server named them. */
  get fields(): string[] {
    return this.errors.map((e) => e.pointer.split("/")[1] ?? "").filter(Boolean);
  }
}

const isFieldProblem = (x: unknown): x is FieldProblem =>
  !!x &&
  typeof x === "object" &&
  typeof (x as FieldProblem).pointer === "string" &&
  typeof (x as FieldProblem).message === "string";

/** A person-facing line for any failure: the server's detail, else `fallback(status)`. */
export function failureLine(e: unknown, unreachable: string, fallback: (status: number) => string): string {
  if (!(e instanceof ApiError) || e.unreachable) return unreachable;
  return e.detail ?? fallback(e.status);
}

type Params<R extends RouteDecl> = keyof PathParams<R["path"]> extends never
  ? { params?: undefined }
  : { params: PathParams<R["path"]> };
type Query<R extends RouteDecl> = R extends { query: object } ? { query?: QueryOf<R> } : { query?: undefined };
type Body<R extends RouteDecl> = R extends { body: object } ? { body: BodyOf<R> } : { body?: undefined };
/** What a call of a route takes: its path's parameters, its query and its body, as its declaration says. */
export type CallInput<R extends RouteDecl> = Params<R> & Query<R> & Body<R>;

/** A query string of the parameters given (left-out ones stay out). */
function queryString(query: Record<string, unknown> | undefined): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

/**
 * Call a declared route (lib/core/routes): the answer parsed by the schema its declaration
 * gives for the status, so its type is the table's. A refusal is thrown as an ApiError.
 * `base` is for clients outside a page (Node's fetch needs absolute URLs).
 */
export async function call<R extends RouteDecl>(r: R, input: CallInput<R>, base = ""): Promise<OkAnswer<R>> {
  const { params, query, body } = input as {
    params?: Record<string, string>;
    query?: Record<string, unknown>;
    body?: unknown;
  };
  const res = await fetch(`${base}${fillPath(r.path, params ?? {})}${queryString(query)}`, {
    method: r.method.toUpperCase(),
    cache: "no-store",
    credentials: "same-origin",
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  }).catch(() => null);
  if (!res) throw new ApiError(0, null);
  const text = await res.text().catch(() => "");
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const declared = r.answers[res.status];
  if (!res.ok || !declared?.schema)
    throw new ApiError(res.status, parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null);
  // Parsed by the very schema the answer's type is inferred from: the one assertion of the client.
  return declared.schema.parse(parsed) as OkAnswer<R>;
}

/** POST one event as the signed-in person; the server sets the actor. `keyPrefix` names where it came from. */
export const postEvent = (workspaceId: string, event: Record<string, unknown>, keyPrefix = "ui") =>
  call(ROUTES.postEvents, {
    body: {
      v: 1,
      id: `evt_${ulid()}`,
      idempotency_key: `${keyPrefix}_${ulid()}`,
      workspace_id: workspaceId,
      ...event,
    },
  });

/** A person's command to a run ([RUN1]); a fresh key per press. */
export const sendCommand = (runId: string, command: CommandName, text?: string) =>
  call(ROUTES.sendCommand, {
    params: { run: runId },
    body: { command, ...(text ? { text } : {}), idempotency_key: `btn_${ulid()}` },
  });

/** Finish a run whose harness is gone. */
export const forceFinish = (runId: string) => call(ROUTES.forceFinish, { params: { run: runId } });

export type { OnlineRunner };

/** Who could take a run now. */
export const onlineRunners = async (workspaceId: string) =>
  (await call(ROUTES.runners, { params: { ws: workspaceId } })).runners;

/** Start a run (§5); the caller keeps the idempotency key so a retry never starts two. */
export const startRun = (body: BodyOf<typeof ROUTES.startRun>) => call(ROUTES.startRun, { body });

/** Create a room in the workspace. */
export const createRoom = (workspaceId: string, name: string) =>
  call(ROUTES.createSpace, { params: { ws: workspaceId }, body: { name } });

/** A signed, expiring URL for a run's artifact ([RN3]). */
export const objectUrl = async (runId: string, sha256: string) =>
  (await call(ROUTES.objectUrl, { params: { run: runId, sha: sha256 } })).url;

/**
 * A link that opens a run's artifact whole ([RN3]): Chips answers it with a redirect to a
 * signed URL made at that moment, so the page never holds one.
 */
export const objectLink = (runId: string, sha256: string) =>
  `${fillPath(ROUTES.objectUrl.path, { run: runId, sha: sha256 })}?redirect=1`;

/** Download a same-origin URL as text (a signed artifact URL); refusals as ApiError. */
export async function downloadText(url: URL): Promise<string> {
  const res = await fetch(url, { cache: "no-store", credentials: "same-origin" }).catch(() => null);
  if (!res) throw new ApiError(0, null);
  if (!res.ok)
    throw new ApiError(res.status, ((await res.json().catch(() => null)) as Record<string, unknown> | null) ?? null);
  return res.text();
}

/** Every revision of a room, oldest first. */
export const roomRevisions = async (spaceId: string) =>
  (await call(ROUTES.revisions, { params: { space: spaceId } })).revisions;

/** The workspace's budgets with their spend now ([BUD2]). */
export const budgets = async (workspaceId: string) =>
  (await call(ROUTES.budgets, { params: { ws: workspaceId } })).budgets;

/** An owner sets the limits of a harness, a runner or (`*`) the whole workspace ([BUD2]); null is no limit. */
export const setBudget = (workspaceId: string, subject: string, body: BodyOf<typeof ROUTES.setBudget>) =>
  call(ROUTES.setBudget, { params: { ws: workspaceId, subject }, body });
