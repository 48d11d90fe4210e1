import type { Hono } from "hono";
import { CommandBody, type RunCommandsAnswer } from "@/lib/core/protocol";
import { forceFinish, pollCommands, sendCommand } from "../commands";
import type { IngestAnswer } from "../ingest/post-events";
import { receiptsOf } from "@/lib/server/queries/runs";
import type { ChipsServices } from "../services";
import { may, refusedBecause } from "../roles";
import { personWriter, runScope } from "./access";
import { fail, intParam, json, parseBody, problemResponse, type ApiEnv } from "./http";

const answer = (r: IngestAnswer) =>
  r.ok
    ? new Response(r.body, { status: r.status, headers: { "content-type": "application/json" } })
    : problemResponse(r.problem);

/** Commands to runs and their receipts ([RUN1], [RT3]), for people, harnesses and scripts. */
export function runRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  // A person's command: answers the stored run.command.
  app.post("/api/v1/runs/:run/commands", async (c) => {
    const cred = personWriter(c, "commands come from people");
    if (cred instanceof Response) return cred;
    const input = await parseBody(c, CommandBody, "bad command", 128 * 1024);
    if (input instanceof Response) return input;
    return answer(await sendCommand(svc, cred, c.req.param("run"), input.data));
  });

  // The receipts of a run's commands (any credential of its workspace).
  app.get("/api/v1/runs/:run/commands", async (c) => {
    const run = await runScope(svc, c);
    if (run instanceof Response) return run;
    const answer: RunCommandsAnswer = {
      run_id: run.id,
      state: run.state,
      pending: run.pending,
      outcome: run.outcome,
      commands: await receiptsOf(svc.db, [run.id]),
    };
    return json(answer);
  });

  app.post("/api/v1/runs/:run/force-finish", async (c) => {
    if (!may(c.get("cred"), "write")) return fail("forbidden", refusedBecause("write"));
    return answer(await forceFinish(svc, c.get("cred"), c.req.param("run")));
  });

  // A harness without sockets polls its runs' commands ([RT3]); polling is its presence.
  app.get("/api/v1/commands", async (c) => {
    const cred = c.get("cred");
    if (cred.kind !== "harness" && cred.kind !== "runner")
      return fail("forbidden", "harnesses poll their commands here");
    const after = intParam(c.req.query("after"), "after", 0);
    if (after instanceof Response) return after;
    const limit = intParam(c.req.query("limit"), "limit", 100, 1000);
    if (limit instanceof Response) return limit;
    const page = await pollCommands(svc, cred, after, Math.max(1, limit));
    return new Response(`{"commands":[${page.bodies.join(",")}],"next_after":${page.nextAfter}}`, {
      headers: { "content-type": "application/json" },
    });
  });
}
