import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../lib/server/api/app";
import { openApiPath } from "../lib/server/api/openapi";
import { answerFaults, routeOf } from "./support/answers";
import { request } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
/** The document as GET /api/v1/openapi.json answered it, fetched once for every test here. */
let doc: any;
let status: number;
beforeAll(async () => {
  server = await startTestServer();
  const r = await request(`${server.url}/api/v1/openapi.json`);
  ({ status, body: doc } = r);
});
afterAll(() => server?.close());

const METHODS = ["get", "post", "put", "patch", "delete"];

describe("[HTTP5] one route table", () => {
  it("[HTTP5] GET /api/v1/openapi.json is an OpenAPI 3.1 document a standard validator passes", async () => {
    expect(status).toBe(200);
    expect(doc.openapi).toBe("3.1.0");
    const verdict = await validate(structuredClone(doc));
    expect(verdict.valid ? [] : verdict.errors).toEqual([]);
  });

  it("[HTTP5] every route the server answers is in the document, and every operation of it is a route", async () => {
    const served = new Set(
      createApi(server.chips.services)
        .routes.filter((r) => r.method !== "ALL")
        .map((r) => `${r.method} ${openApiPath(r.path)}`),
    );
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect(
      [...served].filter((r) => !documented.has(r)),
      "served, not documented",
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !served.has(r)),
      "documented, not served",
    ).toEqual([]);
    expect(served.size).toBeGreaterThan(40);
  });

  it("[HTTP5] each operation documents its refusals as problem+json under their statuses", async () => {
    const commands = doc.paths["/api/v1/runs/{run}/commands"].post.responses;
    expect(commands["401"].description).toContain("`unauthorized`");
    expect(commands["403"].description).toContain("`forbidden`");
    expect(commands["409"].description).toContain("`command_pending`");
    expect(commands["422"].content["application/problem+json"]).toBeTruthy();
  });

  it("[HTTP5] an answer that does not fit its declared schema, or a code the route does not declare, is caught", () => {
    const run = routeOf("GET", `/api/v1/runs/run_01K4ZQPX000000000000000005`)!;
    expect(run.path).toBe("/api/v1/runs/:run");
    expect(answerFaults(run, 200, "application/json", JSON.stringify({ id: "run_x" })).length).toBeGreaterThan(0);
    const refusal = (code: string, status: number) =>
      JSON.stringify({ type: "t", title: "t", status, detail: "d", code });
    expect(answerFaults(run, 404, "application/problem+json", refusal("run_not_found", 404))).toEqual([]);
    expect(answerFaults(run, 409, "application/problem+json", refusal("run_finished", 409))).toEqual([
      "GET /api/v1/runs/:run → 409: code run_finished, which the route does not declare",
    ]);
  });
});
