import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ERROR_STATUS, errorsOf, pathParamNames, Problem, type RouteDecl } from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import { SESSION_COOKIE } from "../sessions";

/**
 * The OpenAPI 3.1 document of the API (`GET /api/v1/openapi.json`), made from the route table
 * by zod-to-openapi — the generator @hono/zod-openapi is built on. Its `app.openapi()` is not
 * used: its validators read the body through `c.req.json()` and refuse in their own order and
 * shapes, where [HTTP2] fixes ours (lib/server/api/adapter.ts). The schemas named with zod's
 * `.meta({id})` (Run, StoredEvent, IncomingEvent, Problem, …) are written once under
 * `components` and referred to.
 */

/** `/runs/:run` → `/runs/{run}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

function responses(r: RouteDecl): RouteConfig["responses"] {
  const out: RouteConfig["responses"] = {};
  for (const [status, a] of Object.entries(r.answers)) {
    const content: Record<string, { schema: z.ZodType }> = {};
    if (a.schema) content[a.media ?? "application/json"] = { schema: a.schema };
    for (const [media, schema] of Object.entries(a.also ?? {})) content[media] = { schema };
    // A redirect has no body to describe.
    out[status] = Object.keys(content).length
      ? { description: a.description, content }
      : { description: a.description };
  }
  const byStatus = new Map<number, string[]>();
  for (const code of errorsOf(r)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of byStatus) {
    if (out[status]) continue; // a status the route answers with data (health's 503) keeps that
    out[status] = {
      description: codes.map((c) => `\`${c}\``).join(", "),
      content: { "application/problem+json": { schema: Problem } },
    };
  }
  return out;
}

function operation(name: string, r: RouteDecl): RouteConfig {
  const params = pathParamNames(r.path);
  return {
    method: r.method,
    path: openApiPath(r.path),
    operationId: name,
    summary: r.summary,
    tags: [r.tag],
    security: r.who.open ? [] : [{ bearer: [] }, { session: [] }],
    request: {
      ...(params.length ? { params: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) } : {}),
      ...(r.query ? { query: r.query } : {}),
      ...(r.body
        ? {
            body: {
              required: true,
              content: Object.fromEntries(
                Object.entries({ [r.body.media ?? "application/json"]: r.body.schema, ...r.body.also }).map(
                  ([media, schema]) => [media, { schema }],
                ),
              ),
            },
          }
        : {}),
    },
    responses: responses(r),
  };
}

export function openApiDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  registry.registerComponent("securitySchemes", "session", { type: "apiKey", in: "cookie", name: SESSION_COOKIE });
  for (const [name, r] of Object.entries(ROUTES)) registry.registerPath(operation(name, r));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Chips",
      version: "1",
      description: "Realtime rooms where AI coding agents work in front of people. docs/API.md and docs/PROTOCOL.md.",
    },
  });
}
