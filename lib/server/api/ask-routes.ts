import type { Hono } from "hono";
import { AnswerBody, canonicalId, isId, type InboxAnswer, type RunAsksAnswer } from "@/lib/core/protocol";
import { waitsForPerson } from "@/lib/core/projection/asks";
import { asksOfRuns, getAsk, inbox } from "@/lib/server/queries/asks";
import { answerAsk } from "../asks";
import type { ChipsServices } from "../services";
import { personWriter, runScope, workspaceScope } from "./access";
import { fail, intParam, json, parseBody, problemResponse, type ApiEnv } from "./http";

/** The longest a long-poll on an ask waits, seconds. */
const WAIT_MAX = 30;

/**
 * Asks and answers ([ASK1]–[ASK6], docs/API.md): a person answers (the first answer wins); a
 * run's asks and one ask are read by its workspace — one ask also by long-poll, for a hook
 * process with no socket; the inbox lists what waits for a person across the workspace's rooms.
 */
export function askRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.post("/api/v1/runs/:run/asks/:ask/answer", async (c) => {
    const cred = personWriter(c, "answers come from people");
    if (cred instanceof Response) return cred;
    const input = await parseBody(c, AnswerBody, "bad answer", 64 * 1024);
    if (input instanceof Response) return input;
    const r = await answerAsk(svc, cred, c.req.param("run"), c.req.param("ask"), input.data);
    return r.ok
      ? new Response(r.body, { status: r.status, headers: { "content-type": "application/json" } })
      : problemResponse(r.problem);
  });

  app.get("/api/v1/runs/:run/asks", async (c) => {
    const run = await runScope(svc, c);
    if (run instanceof Response) return run;
    return json({ run_id: run.id, asks: await asksOfRuns(svc.db, [run.id]) } satisfies RunAsksAnswer);
  });

  // One ask; `wait` (seconds) holds the answer until the ask no longer waits for a person.
  app.get("/api/v1/runs/:run/asks/:ask", async (c) => {
    const wait = intParam(c.req.query("wait"), "wait", 0, WAIT_MAX);
    if (wait instanceof Response) return wait;
    const run = await runScope(svc, c);
    if (run instanceof Response) return run;
    const cred = c.get("cred");
    if ((cred.kind === "harness" || cred.kind === "runner") && run.harness_id !== cred.subjectId)
      return fail("forbidden", "this run belongs to another harness");
    // A harness waiting on its ask is there: the wait counts as presence, as a poll does.
    if (cred.kind === "harness" || cred.kind === "runner") svc.presence.seen(cred.subjectId, cred.workspaceId);
    const raw = c.req.param("ask");
    const askId = isId("ask", raw) ? canonicalId(raw) : null;
    const read = async () => {
      const a = askId ? await getAsk(svc.db, run.workspace_id, askId) : null;
      return a && a.run_id === run.id ? a : null;
    };
    let ask = await read();
    if (!ask) return fail("ask_not_found", "no such ask for this run");
    if (wait > 0 && waitsForPerson(ask)) {
      const moved = svc.askWaits.wait(ask.ask_id, wait * 1000);
      ask = (await read())!; // read again after registering, so a move in between is not missed
      if (waitsForPerson(ask)) {
        await moved;
        ask = (await read())!;
      }
    }
    return json(ask);
  });

  app.get("/api/v1/workspaces/:ws/asks", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const state = c.req.query("state") ?? "open";
    if (state !== "open" && state !== "all") return fail("validation_failed", "state is open or all", "/query/state");
    const limit = intParam(c.req.query("limit"), "limit", 200, 1000);
    if (limit instanceof Response) return limit;
    return json({
      asks: await inbox(svc.db, ws, { waiting: state === "open", limit: Math.max(1, limit) }),
    } satisfies InboxAnswer);
  });
}
