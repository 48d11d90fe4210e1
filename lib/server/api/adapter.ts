import type { Context, Hono } from "hono";
import type { z } from "zod";
import {
  ERROR_STATUS,
  problem,
  zodErrors,
  type AnswerOf,
  type PathParams,
  type ProblemError,
  type RouteDecl,
  type Run,
} from "@/lib/core/protocol";
import type { Credential, WorkspaceCredential } from "../credentials";
import type { ChipsServices } from "../services";
import { allowed, runScope, spaceScope, workspaceScope } from "./access";
import { problemResponse, readBytes, readJson, type ApiEnv } from "./http";

/**
 * The one adapter from a route's declaration (lib/core/protocol/route.ts) to a Hono handler.
 * It does, in [HTTP2]'s order, what every route needs and none writes for itself: who may call
 * (and `:ws`), the body (415, 413, 400, then 422 with a pointer to each field at fault), the
 * run or space the path names (404), then the query (422) — and hands the handler typed
 * values. A handler answers data or a ProblemError; the adapter makes the Response.
 */

type Status<R extends RouteDecl> = keyof R["answers"] & number;

/** A body sent as it is: JSON the server already holds serialized (stored events), or another media type. */
type RawBody = string | Uint8Array<ArrayBuffer> | ReadableStream | null;

/** What a handler answers: data for a status, a body already serialized, or a refusal. */
export type Reply<R extends RouteDecl> =
  | { [S in Status<R>]: { status: S; body: AnswerOf<R, S> } }[Status<R>]
  /** Sent as it is: the declaration still documents its schema; the tests check it. */
  | { status: Status<R>; raw: RawBody; headers?: Record<string, string> }
  | ProblemError;

type Who<R extends RouteDecl> = R["who"];
type CredOf<R extends RouteDecl> =
  Who<R> extends { open: true }
    ? undefined
    : Who<R> extends { kinds: readonly (infer K)[] }
      ? "admin" extends K
        ? Credential
        : WorkspaceCredential
      : Credential;
type BodyValue<R extends RouteDecl> = R["body"] extends { judged: true }
  ? unknown
  : R["body"] extends { media: "application/octet-stream" | "application/x-protobuf" }
    ? never
    : R["body"] extends { schema: infer S extends z.ZodType }
      ? z.output<S>
      : undefined;

/** What the handler is handed: the credential, the path's parameters, and what the declaration asked for. */
type Call<R extends RouteDecl> = {
  c: Context<ApiEnv>;
  cred: CredOf<R>;
  params: PathParams<R["path"]>;
  query: R["query"] extends z.ZodType ? z.output<R["query"]> : undefined;
  body: BodyValue<R>;
  /** A body of bytes, read now (415 for a media type not declared, 413 past `maxBytes`, the declared bound by default). */
  octets: (maxBytes?: number) => Promise<Buffer | ProblemError>;
} & (R["scope"] extends "workspace" ? { ws: string } : unknown) &
  (R["scope"] extends "run" ? { run: Run } : unknown) &
  (R["scope"] extends "space" ? { space: { id: string; workspaceId: string } } : unknown);

export type Handler<R extends RouteDecl> = (call: Call<R>) => Reply<R> | Promise<Reply<R>>;

export const isProblem = (x: unknown): x is ProblemError =>
  typeof x === "object" && x !== null && "code" in x && (x as ProblemError).code in ERROR_STATUS;

const JSON_TYPE = "application/json";

/** The Response for a reply: JSON serialized here, a raw body as it is, a refusal as problem+json. */
function respond(r: RouteDecl, reply: Reply<RouteDecl>): Response {
  if (isProblem(reply)) return problemResponse(reply);
  if ("raw" in reply) {
    const headers = { "content-type": r.answers[reply.status]?.media ?? JSON_TYPE, ...reply.headers };
    return new Response(reply.raw, { status: reply.status, headers });
  }
  return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { "content-type": JSON_TYPE } });
}

/** Everything before the handler, in [HTTP2]'s order: the handler's call, or the refusal. */
async function prepare(
  svc: Pick<ChipsServices, "db">,
  r: RouteDecl,
  c: Context<ApiEnv>,
): Promise<Call<RouteDecl> | ProblemError> {
  const cred = c.get("cred") as Credential | undefined;
  const params = c.req.param() as Record<string, string>;
  const call: Record<string, unknown> = { c, cred, params, query: undefined, body: undefined };
  if (cred) {
    if (r.scope === "workspace") {
      const ws = workspaceScope(cred, params.ws ?? "", r.who);
      if (isProblem(ws)) return ws;
      call.ws = ws;
    } else {
      const refused = allowed(cred, r.who);
      if (refused) return refused;
    }
  }
  const body = r.body;
  if (body?.media && body.media !== JSON_TYPE) {
    const media = [body.media, ...Object.keys(body.also ?? {})];
    call.octets = (maxBytes = body.maxBytes) => octets(c, maxBytes, media);
  } else if (body) {
    const read = await readJson(c, body.maxBytes);
    if (!read.ok) return read.problem;
    if (body.judged) call.body = read.value;
    else {
      const parsed = body.schema.safeParse(read.value ?? body.nullAs ?? read.value);
      if (!parsed.success) return problem("validation_failed", body.what ?? "bad body", zodErrors("", parsed.error));
      call.body = parsed.data;
    }
  }
  if (cred && r.scope === "run") {
    const run = await runScope(svc, cred, params.run ?? "");
    if (isProblem(run)) return run;
    call.run = run;
  } else if (cred && r.scope === "space") {
    const space = await spaceScope(svc, cred, params.space ?? "");
    if (isProblem(space)) return space;
    call.space = space;
  }
  if (r.query) {
    const parsed = r.query.safeParse(c.req.query());
    if (!parsed.success) {
      const errors = zodErrors("/query", parsed.error);
      return problem("validation_failed", errors[0]?.message ?? "bad query", errors);
    }
    call.query = parsed.data;
  }
  return call as Call<RouteDecl>;
}

async function octets(c: Context<ApiEnv>, maxBytes: number, media: string[]): Promise<Buffer | ProblemError> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!media.includes(type)) return problem("unsupported_media_type", `send the body as ${media.join(" or ")}`);
  const read = await readBytes(c, maxBytes);
  return read.ok ? read.value : read.problem;
}

/** Mounts one declared route on the app with its handler. */
function mount<R extends RouteDecl>(app: Hono<ApiEnv>, svc: Pick<ChipsServices, "db">, r: R, handler: Handler<R>) {
  app.on(r.method.toUpperCase(), r.path, async (c) => {
    const call = await prepare(svc, r, c);
    if (isProblem(call)) return respond(r, call);
    // Returned, not awaited: this frame would keep the request's parsed body reachable until
    // the handler's answer (an ingest commit), and every scavenge meanwhile would copy it.
    return settle(r, handler(call as Call<R>) as Reply<RouteDecl> | Promise<Reply<RouteDecl>>);
  });
}

const settle = (r: RouteDecl, reply: Reply<RouteDecl> | Promise<Reply<RouteDecl>>) =>
  Promise.resolve(reply).then((x) => respond(r, x));

/** Every route of a table with its handler: a table without a handler for each route does not compile. */
export type Handlers<T extends Record<string, RouteDecl>> = { [K in keyof T]: Handler<T[K]> };

export function mountAll<T extends Record<string, RouteDecl>>(
  app: Hono<ApiEnv>,
  svc: Pick<ChipsServices, "db">,
  table: T,
  handlers: Handlers<T>,
  which: (r: RouteDecl) => boolean,
) {
  for (const name of Object.keys(table) as (keyof T)[])
    if (which(table[name])) mount(app, svc, table[name], handlers[name]);
}
