import { Readable } from "node:stream";
import { problem } from "@/lib/core/protocol";
import { RUN_ROUTES } from "@/lib/core/routes";
import { forceFinish, pollCommands, sendCommand } from "../commands";
import type { IngestAnswer } from "../ingest/post-events";
import { receiptsOf, runnerEventsAfter } from "@/lib/server/queries/runs";
import { startRun } from "../dispatch/start-run";
import { ObjectStore } from "../dispatch/objects";
import type { ChipsServices } from "../services";
import { isProblem, type Handlers } from "./adapter";

/** A stored event the writer answered, sent as it is stored. */
const stored = (r: IngestAnswer) => (r.ok ? { status: r.status, raw: r.body } : r.problem);

/** The handlers of lib/core/routes/runs.ts: commands and receipts ([RUN1], [RT3]), runner runs and objects (§5). */
export function runHandlers(
  svc: Pick<ChipsServices, "config" | "db" | "objects" | "presence" | "runners" | "writer">,
): Handlers<typeof RUN_ROUTES> {
  return {
    sendCommand: async ({ cred, params, body }) => stored(await sendCommand(svc, cred, params.run, body)),

    runCommands: async ({ run }) => ({
      status: 200,
      body: {
        run_id: run.id,
        state: run.state,
        pending: run.pending,
        outcome: run.outcome,
        commands: await receiptsOf(svc.db, [run.id]),
      },
    }),

    forceFinish: async ({ cred, params }) => stored(await forceFinish(svc, cred, params.run)),

    // Polling is the harness's presence ([RT3]).
    pollCommands: async ({ cred, query }) => {
      const page = await pollCommands(svc, cred, query.after, Math.max(1, query.limit));
      return { status: 200, raw: `{"commands":[${page.bodies.join(",")}],"next_after":${page.nextAfter}}` };
    },

    startRun: async ({ cred, body }) => {
      const r = await startRun(svc, cred, body);
      if (!r.ok) return r.problem;
      return { status: r.status, raw: `{"run_id":${JSON.stringify(r.runId)},"events":[${r.bodies.join(",")}]}` };
    },

    runners: ({ ws }) => ({ status: 200, body: { runners: svc.runners.list(ws) } }),

    runnerEvents: async ({ run, query }) => ({
      status: 200,
      body: { run_id: run.id, events: await runnerEventsAfter(svc.db, run.id, query.after) },
    }),

    putObject: async ({ cred, run, octets }) => {
      if (run.harness_id !== cred.subjectId) return problem("forbidden", "this run belongs to another runner");
      const body = await octets(svc.config.maxObjectBytes);
      if (isProblem(body)) return body;
      return { status: 201, body: await svc.objects.put(run.workspace_id, run.id, body) };
    },

    // `?redirect=1`: a page's link opens the object without ever holding the URL.
    objectUrl: async ({ run, params, query }) => {
      const key = ObjectStore.keyOf(run.workspace_id, run.id, params.sha);
      if (!(await svc.objects.exists(key))) return problem("not_found", "no such object in this run");
      const signed = svc.objects.sign(key, svc.config.objectUrlTtlSeconds);
      if (query.redirect === "1")
        return { status: 302, raw: null, headers: { location: signed.url, "cache-control": "no-store" } };
      return { status: 200, body: signed };
    },

    // The signature is the credential. Served as inert bytes.
    objectBytes: async ({ params, query }) => {
      const key = `${params.ws}/${params.run}/${params.sha}`;
      const verdict = svc.objects.verify(key, query.exp, query.sig);
      if (verdict === "expired") return problem("forbidden", "this object URL has expired: ask for a new one");
      if (verdict === "bad") return problem("forbidden", "this object URL's signature is not valid");
      const stream = await svc.objects.open(key);
      if (!stream) return problem("not_found", "no such object");
      return {
        status: 200,
        raw: Readable.toWeb(stream) as ReadableStream,
        headers: {
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "cache-control": "private, max-age=60",
        },
      };
    },
  };
}
