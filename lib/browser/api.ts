import { ulid } from "ulid";
import type { BudgetBody, BudgetsAnswer, CommandName, RoomRevisionsAnswer } from "@/lib/core/protocol";

/**
 * The browser's one door to the HTTP API (docs/API.md): same origin, the session cookie,
 * JSON. Components and pages never `fetch` themselves (`npm run lint` refuses it); they call
 * the typed functions here or in the `*-api.ts` files built on `request`. A refusal is thrown
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

/** Call the API; the parsed JSON answer (undefined for an empty one), or an ApiError thrown. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
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
  if (!res.ok)
    throw new ApiError(res.status, parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null);
  return parsed as T;
}

/** Run `call`; null when it went through, else the line to show (see failureLine). */
export async function refusalOf(
  call: Promise<unknown>,
  unreachable = "Could not reach Chips.",
  fallback = (s: number) => `Refused (${s}).`,
): Promise<string | null> {
  try {
    await call;
    return null;
  } catch (e) {
    return failureLine(e, unreachable, fallback);
  }
}

const enc = encodeURIComponent;

/** POST one event as the signed-in person; the server sets the actor. `keyPrefix` names where it came from. */
export function postEvent(workspaceId: string, event: Record<string, unknown>, keyPrefix = "ui"): Promise<unknown> {
  return request("POST", "/api/v1/events", {
    v: 1,
    id: `evt_${ulid()}`,
    idempotency_key: `${keyPrefix}_${ulid()}`,
    workspace_id: workspaceId,
    ...event,
  });
}

/** A person's command to a run ([RUN1]); a fresh key per press. */
export const sendCommand = (runId: string, command: CommandName, text?: string) =>
  request("POST", `/api/v1/runs/${enc(runId)}/commands`, {
    command,
    ...(text ? { text } : {}),
    idempotency_key: `btn_${ulid()}`,
  });

/** Finish a run whose harness is gone. */
export const forceFinish = (runId: string) => request("POST", `/api/v1/runs/${enc(runId)}/force-finish`);

/** A runner online now, as "Start a run" offers it. */
export interface OnlineRunner {
  runner_id: string;
  name: string;
  /** What each agent CLI of the runner offers: the models and providers a start may pick ([RN5]). */
  adapters: { agent: string; models?: string[]; providers?: string[] }[];
  repositories: string[];
}

/** Who could take a run now. */
export const onlineRunners = async (workspaceId: string) =>
  (await request<{ runners?: OnlineRunner[] } | undefined>("GET", `/api/v1/workspaces/${enc(workspaceId)}/runners`))
    ?.runners ?? null;

/** Start a run (§5); the caller keeps the idempotency key so a retry never starts two. */
export const startRun = (body: Record<string, unknown> & { idempotency_key: string }) =>
  request<{ run_id?: string } | undefined>("POST", "/api/v1/runs", body);

/** Create a room in the workspace. */
export const createRoom = (workspaceId: string, name: string) =>
  request<{ id: string }>("POST", `/api/v1/workspaces/${enc(workspaceId)}/spaces`, { name });

/** A signed, expiring URL for a run's artifact ([RN3]). */
export const objectUrl = async (runId: string, sha256: string) =>
  (await request<{ url?: unknown } | undefined>("GET", `/api/v1/runs/${enc(runId)}/objects/${enc(sha256)}`))?.url;

/**
 * A link that opens a run's artifact whole ([RN3]): Chips answers it with a redirect to a
 * signed URL made at that moment, so the page never holds one.
 */
export const objectLink = (runId: string, sha256: string) =>
  `/api/v1/runs/${enc(runId)}/objects/${enc(sha256)}?redirect=1`;

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
  (await request<RoomRevisionsAnswer>("GET", `/api/v1/spaces/${enc(spaceId)}/revisions`)).revisions;

/** The workspace's budgets with their spend now ([BUD2]). */
export const budgets = async (workspaceId: string) =>
  (await request<BudgetsAnswer>("GET", `/api/v1/workspaces/${enc(workspaceId)}/budgets`)).budgets;

/** An owner sets the limits of a harness, a runner or (`*`) the whole workspace ([BUD2]); null is no limit. */
export const setBudget = (workspaceId: string, subject: string, body: BudgetBody) =>
  request<unknown>("PUT", `/api/v1/workspaces/${enc(workspaceId)}/budgets/${enc(subject)}`, body);
