import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../lib/core/routes";
import { ApiError, call } from "../lib/browser/api";
import { serverWithWorkspace, ev, post, type Workspace } from "./support/api";
import { type TestServer } from "./support/server";

/**
 * lib/browser/api.ts, the browser's one door to the HTTP API, against the real server: a
 * refusal comes back as an ApiError with the problem's stable code and the field at fault;
 * no answer at all is `unreachable`. (Node's fetch needs absolute URLs; the browser's are relative.)
 */
let server: TestServer;
let ws: Workspace;

beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

describe("lib/browser/api.ts", () => {
  it("[HTTP2] a refusal is an ApiError with its status, stable code and detail", async () => {
    const body = { space_id: ws.space_id, prompt: "p", repository: "r", idempotency_key: "k" };
    const e = await call(ROUTES.startRun, { body }, server.url).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    const refused = e as ApiError;
    expect(refused.status).toBe(401);
    expect(refused.code).toMatch(/^[a-z_]+$/);
    expect(refused.code).not.toBe("http_401");
    expect(refused.detail).toEqual(expect.any(String));
    expect(refused.unreachable).toBe(false);
  });

  it("[HTTP2] the field at fault is the first segment of the problem's pointer", async () => {
    const r = await post(server, ws.token, ev(ws, "message.posted", { space_id: ws.space_id, text: 42 }));
    expect(r.status).toBe(422);
    const refused = new ApiError(r.status, r.body);
    expect(refused.code).toBe(r.body.code);
    expect(refused.field).toBe("text");
    expect(refused.errors[0]).toEqual({ pointer: "/text", message: expect.any(String) });
  });

  it("no answer is `unreachable`, and an answer that is not problem+json is http_<status>", async () => {
    const gone = (await call(ROUTES.health, {}, "http://127.0.0.1:1").catch((x: unknown) => x)) as ApiError;
    expect([gone.code, gone.status, gone.unreachable, gone.message]).toEqual([
      "unreachable",
      0,
      true,
      "Could not reach Chips.",
    ]);
    const plain = new ApiError(502, null);
    expect([plain.code, plain.field, plain.message]).toEqual(["http_502", undefined, "Refused (502)."]);
  });

  it("[HTTP5] answers a success parsed by the schema its route declares, typed by it", async () => {
    const health = await call(ROUTES.live, {}, server.url);
    expect(health).toEqual({ ok: true, live: true });
    const schemas = await call(ROUTES.schemas, {}, server.url);
    expect(schemas.schemas).toContain("/schemas/envelope.json");
  });
});
