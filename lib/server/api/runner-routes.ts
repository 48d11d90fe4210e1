import type { Context, Hono } from "hono";
import { Readable } from "node:stream";
import { StartRunBody } from "@/lib/core/protocol/runner-contract";
import { runnerEventsAfter } from "@/lib/server/queries/runs";
import { startRun } from "../dispatch/start-run";
import { ObjectStore } from "../dispatch/objects";
import type { ChipsServices } from "../services";
import { personWriter, runScope, workspaceScope } from "./access";
import { fail, intParam, json, parseBody, problemResponse, readBytes, type ApiEnv } from "./http";

/** Runner runs (§5): start one, read its runner events, and its objects ([RN3]). */
export function runnerRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.post("/api/v1/runs", async (c) => {
    const cred = personWriter(c, "runs are started by people");
    if (cred instanceof Response) return cred;
    const input = await parseBody(c, StartRunBody, "bad run request", 128 * 1024);
    if (input instanceof Response) return input;
    const r = await startRun(svc, cred, input.data);
    if (!r.ok) return problemResponse(r.problem);
    return new Response(`{"run_id":${JSON.stringify(r.runId)},"events":[${r.bodies.join(",")}]}`, {
      status: r.status,
      headers: { "content-type": "application/json" },
    });
  });

  // The runners connected now (on this node): their repositories and agents, for the start form.
  app.get("/api/v1/workspaces/:ws/runners", (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    return json({ runners: svc.runnersOnline(ws) });
  });

  // Every runner event of a run, in sequence order ([RN2]).
  app.get("/api/v1/runs/:run/runner-events", async (c) => {
    const run = await runOf(c);
    if (run instanceof Response) return run;
    const after = intParam(c.req.query("after"), "after", 0);
    if (after instanceof Response) return after;
    return json({ run_id: run.id, events: await runnerEventsAfter(svc.db, run.id, after) });
  });

  // A runner stores an artifact of its run; answers the reference events carry.
  app.put("/api/v1/runs/:run/objects", async (c) => {
    const cred = c.get("cred");
    if (cred.kind !== "runner") return fail("forbidden", "objects are stored by the run's runner");
    const run = await runOf(c);
    if (run instanceof Response) return run;
    if (run.harness_id !== cred.subjectId) return fail("forbidden", "this run belongs to another runner");
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/octet-stream")
      return fail("unsupported_media_type", "send the object as application/octet-stream");
    const body = await readBytes(c, svc.config.maxObjectBytes);
    if (!body.ok) return body.response;
    return json(await svc.objects.put(run.workspace_id, run.id, body.value), 201);
  });

  // A signed, expiring URL to read one object, made now ([RN3]); `?redirect=1` answers a
  // redirect to it instead, so a page's link opens the object without ever holding the URL.
  app.get("/api/v1/runs/:run/objects/:sha", async (c) => {
    const run = await runOf(c);
    if (run instanceof Response) return run;
    const key = ObjectStore.keyOf(run.workspace_id, run.id, c.req.param("sha"));
    if (!(await svc.objects.exists(key))) return fail("not_found", "no such object in this run");
    const signed = svc.objects.sign(key, svc.config.objectUrlTtlSeconds);
    if (c.req.query("redirect") === "1")
      return new Response(null, { status: 302, headers: { location: signed.url, "cache-control": "no-store" } });
    return json(signed);
  });

  // The signed URL itself: the signature is the credential. Served as inert bytes.
  app.get("/objects/:ws/:run/:sha", async (c) => {
    const key = `${c.req.param("ws")}/${c.req.param("run")}/${c.req.param("sha")}`;
    const verdict = svc.objects.verify(key, c.req.query("exp"), c.req.query("sig"));
    if (verdict === "expired") return fail("forbidden", "this object URL has expired: ask for a new one");
    if (verdict === "bad") return fail("forbidden", "this object URL's signature is not valid");
    const stream = await svc.objects.open(key);
    if (!stream) return fail("not_found", "no such object");
    return new Response(Readable.toWeb(stream) as ReadableStream, {
      headers: {
        "content-type": "application/octet-stream",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cache-control": "private, max-age=60",
      },
    });
  });

  const runOf = (c: Context<ApiEnv>) => runScope(svc, c);
}
