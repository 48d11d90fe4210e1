import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "./errors";

/**
 * How an HTTP route is declared (docs/API.md): once, as data — method, path, who may call
 * it, what it reads from the path, query and body, what it answers and which codes it may
 * refuse with. The server's one adapter (lib/server/api/adapter.ts) turns a declaration into
 * a handler, the OpenAPI document and docs/API.md's route list come from the same data, and
 * the browser's client (lib/browser/api.ts) takes its types from it. Browser-safe: zod only.
 */

export type Method = "get" | "post" | "put" | "patch" | "delete";
export type CredentialKind = "admin" | "person" | "harness" | "runner";

/**
 * Who may call, checked in [HTTP2]'s order before anything is read: the kinds of credential,
 * then what a person's role must allow (`write`: a member or an owner; `manage`: an owner;
 * harnesses and runners write but never manage; the admin token may do both).
 */
export interface Who {
  /** No credential: the route answers anyone (health, schemas, a signed URL whose signature is the credential). */
  open?: true;
  kinds?: readonly CredentialKind[];
  may?: "write" | "manage";
  /** The refusal's sentence when the credential's kind may not call. */
  refusal?: string;
}

/**
 * What the route is about, resolved from its path before the handler runs: `workspace` from
 * `:ws` (another workspace's is 403), `run` from `:run` and `space` from `:space` (another
 * workspace's answers like a missing one: 404).
 */
export type Scope = "workspace" | "run" | "space";

export interface BodyDecl {
  schema: z.ZodType;
  /**
   * `application/json` unless said. A body of another media type (octet-stream, OTLP's protobuf)
   * is read by the handler as bytes, after the scope (415 for a media type not declared).
   */
  media?: "application/json" | "application/octet-stream" | "application/x-protobuf";
  /** Other media types the handler reads the same bytes as, e.g. OTLP's JSON beside its protobuf. */
  also?: Record<string, z.ZodType>;
  /** Past this the request is 413 and the rest is not read. */
  maxBytes: number;
  /** The title of the 422 when the body does not fit `schema`, e.g. "bad command". */
  what?: string;
  /** Stands in for a JSON `null` body (routes whose every field has a default). */
  nullAs?: unknown;
  /** The handler judges the JSON itself (the ingest's own order of checks); `schema` documents it. */
  judged?: true;
}

export interface AnswerDecl {
  description: string;
  /** The JSON answer; for another media type (`media`), what the body is. None for a redirect. */
  schema?: z.ZodType;
  media?: string;
  /** Other media types the same status may answer in, e.g. `text/csv` beside the JSON. */
  also?: Record<string, z.ZodType>;
}

export interface RouteDecl {
  method: Method;
  /** Hono's syntax: `/api/v1/runs/:run`. */
  path: string;
  summary: string;
  /** The part of the API it belongs to: its section in docs/API.md and its tag in the OpenAPI document. */
  tag: string;
  who: Who;
  scope?: Scope;
  /** An object of the query's parameters (a pipe when they are prepared first, e.g. blanks dropped). */
  query?: z.ZodObject | z.ZodPipe | z.ZodPreprocess;
  body?: BodyDecl;
  answers: Record<number, AnswerDecl>;
  /** The codes its handler may refuse with, beside those its credential, scope and body checks give. */
  errors: readonly ErrorCode[];
}

/** The answers of a write keyed by an idempotency key: 201 when it stored something, 200 for a replay of the key. */
export const storedOrReplay = <S extends z.ZodType>(schema: S, stored: string) => ({
  200: { description: "a replay of the idempotency key: what was stored the first time", schema },
  201: { description: stored, schema },
});

/** Declares a route, keeping its literal types for the handler's and the client's types. */
export const route = <const R extends RouteDecl>(r: R): R => r;

/** The path's parameters by name: `/runs/:run/objects/:sha` → `{run: string; sha: string}`. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

/** The names of a path's parameters, in order. */
export const pathParamNames = (path: string): string[] => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);

/** A path with its parameters filled in, each URI-encoded. */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(params[name]));
}

type Status<R extends RouteDecl> = keyof R["answers"] & number;
type Success<S> = S extends 200 | 201 ? S : never;
/** The JSON a route answers with `S`. */
export type AnswerOf<R extends RouteDecl, S extends Status<R> = Status<R>> = S extends keyof R["answers"]
  ? R["answers"][S] extends { schema: infer T extends z.ZodType }
    ? z.output<T>
    : never
  : never;
/** What a route answers when it succeeds. */
export type OkAnswer<R extends RouteDecl> = AnswerOf<R, Success<Status<R>>>;
/** The query a route takes, as the caller writes it. */
export type QueryOf<R extends RouteDecl> = R["query"] extends z.ZodType ? z.input<R["query"]> : never;
/** The body a route takes, as the caller writes it (what the handler judges itself, any JSON). */
export type BodyOf<R extends RouteDecl> = R["body"] extends { judged: true }
  ? unknown
  : R["body"] extends { schema: infer T extends z.ZodType }
    ? z.input<T>
    : never;

/** A non-negative integer in the query string: `dflt` when absent or empty, refused past `max`. */
export const count = (name: string, dflt: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d*$/, `${name} must be a non-negative integer`)
    .optional()
    .transform((s) => (s ? Number(s) : dflt))
    .pipe(z.number().max(max, `${name} must be at most ${max}`));

/** An optional query parameter where an empty value means left out. */
export const blankless = <S extends z.ZodType>(s: S) => z.preprocess((v) => (v === "" ? undefined : v), s.optional());

/**
 * Every code a route may answer with: its handler's (`errors`) and those its credential,
 * scope, body and query checks give, in [HTTP2]'s order. The OpenAPI document lists them
 * and the tests hold every refusal to them.
 */
export function errorsOf(r: RouteDecl): ErrorCode[] {
  const out: ErrorCode[] = [];
  if (!r.who.open) {
    out.push("unauthorized", "rate_limited");
    // A cookie write from another page is refused whatever the route; so are a kind or a role that may not.
    if (r.method !== "get" || r.who.kinds || r.who.may || r.scope === "workspace") out.push("forbidden");
    out.push("unavailable");
  }
  if (r.scope === "workspace") out.push("validation_failed");
  if (r.body) {
    out.push("unsupported_media_type", "payload_too_large");
    if ((r.body.media ?? "application/json") === "application/json") out.push("invalid_json", "validation_failed");
  }
  if (r.scope === "run") out.push("run_not_found");
  if (r.scope === "space") out.push("space_not_found");
  if (r.query) out.push("validation_failed");
  out.push(...r.errors, "internal");
  return [...new Set(out)];
}

/** A refusal's body (RFC 9457): its members beside these are the extensions a code carries (`current`, `unmet`, …). */
export const Problem = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    errors: z.array(z.object({ pointer: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: "Problem" });
