import { canonicalId, isId, problem } from "@/lib/core/protocol";
import { ASK_ROUTES } from "@/lib/core/routes";
import { waitsForPerson } from "@/lib/core/projection/asks";
import { asksOfRuns, getAsk, inbox } from "@/lib/server/queries/asks";
import { answerAsk } from "../asks";
import type { ChipsServices } from "../services";
import type { Handlers } from "./adapter";

/**
 * The handlers of lib/core/routes/asks.ts's asks ([ASK1]–[ASK6]): a person answers through the
 * one writer (the first answer wins); one ask may be long-polled by a hook with no socket.
 */
export function askHandlers(
  svc: Pick<ChipsServices, "askWaits" | "db" | "presence" | "writer">,
): Handlers<typeof ASK_ROUTES> {
  return {
    answerAsk: async ({ cred, params, body }) => {
      const r = await answerAsk(svc, cred, params.run, params.ask, body);
      return r.ok ? { status: r.status, raw: r.body } : r.problem;
    },

    runAsks: async ({ run }) => ({ status: 200, body: { run_id: run.id, asks: await asksOfRuns(svc.db, [run.id]) } }),

    // `wait` (seconds) holds the answer until the ask no longer waits for a person.
    oneAsk: async ({ cred, run, params, query }) => {
      if ((cred.kind === "harness" || cred.kind === "runner") && run.harness_id !== cred.subjectId)
        return problem("forbidden", "this run belongs to another harness");
      // A harness waiting on its ask is there: the wait counts as presence, as a poll does.
      if (cred.kind === "harness" || cred.kind === "runner") svc.presence.seen(cred.subjectId, cred.workspaceId);
      const askId = isId("ask", params.ask) ? canonicalId(params.ask) : null;
      const read = async () => {
        const a = askId ? await getAsk(svc.db, run.workspace_id, askId) : null;
        return a && a.run_id === run.id ? a : null;
      };
      let ask = await read();
      if (!ask) return problem("ask_not_found", "no such ask for this run");
      if (query.wait > 0 && waitsForPerson(ask)) {
        const moved = svc.askWaits.wait(run.workspace_id, ask.ask_id, query.wait * 1000);
        ask = (await read())!; // read again after registering, so a move in between is not missed
        if (waitsForPerson(ask)) {
          await moved;
          ask = (await read())!;
        }
      }
      return { status: 200, body: ask };
    },

    inbox: async ({ ws, query }) => ({
      status: 200,
      body: { asks: await inbox(svc.db, ws, { waiting: query.state === "open", limit: Math.max(1, query.limit) }) },
    }),
  };
}
