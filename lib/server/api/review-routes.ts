import type { Context, Hono } from "hono";
import {
  AnnotationBody,
  EVENT_TYPES,
  ExportDocument,
  newId,
  parseRunFilter,
  problem,
  RollupQuery,
  SavedViewBody,
  zodErrors,
  type RunFilter,
} from "@/lib/core/protocol";
import {
  BadCursor,
  countReviewRuns,
  deleteView,
  directoryOf,
  listReviewRuns,
  saveView,
  savedViewsOf,
} from "@/lib/server/queries/review";
import { rollup } from "@/lib/server/queries/rollups";
import { runEventWindow } from "@/lib/server/queries/run-log";
import { LOG_PAGE } from "@/lib/core/review/run-log";
import { rollupCsv } from "@/lib/core/review/rollups";
import { annotate } from "../review/annotate";
import { exportDocument, runNdjson } from "../review/export";
import { importRuns } from "../review/import";
import type { ChipsServices } from "../services";
import { shareRoutes } from "./share-routes";
import { personWriter, runScope, workspaceScope } from "./access";
import { fail, intParam, json, parseBody, problemResponse, type ApiEnv } from "./http";

/** Largest import body: an export with its artifacts. */
const IMPORT_BYTES = 64 * 1024 * 1024;
/** Most runs one filtered export takes. */
const EXPORT_RUNS = 1000;

/** The query string as a view, or a 422 naming the parameter at fault ([REV1]). */
function filterOf(c: Context<ApiEnv>): RunFilter | Response {
  const parsed = parseRunFilter(c.req.query());
  if (!parsed.success)
    return problemResponse(problem("validation_failed", "bad runs view", zodErrors("/query", parsed.error)));
  return parsed.data;
}

/**
 * Review of past runs (docs/REVIEW.md): the runs list with its filters and search, people's
 * saved views, and export and import of runs ([EXP1], [EXP2]). Reading is for anyone of the
 * workspace (viewers review); an import writes, so it takes a member or an owner.
 */
export function reviewRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.get("/api/v1/workspaces/:ws/review/runs", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const f = filterOf(c);
    if (f instanceof Response) return f;
    await svc.review.settle(ws);
    try {
      const [page, count] = await Promise.all([listReviewRuns(svc.db, ws, f), countReviewRuns(svc.db, ws, f)]);
      return json({ ...page, count });
    } catch (e) {
      if (e instanceof BadCursor) return fail("validation_failed", e.message, "/query/cursor");
      throw e;
    }
  });

  app.get("/api/v1/workspaces/:ws/review/views", async (c) => {
    const ws = workspaceScope(c, ["person"]);
    if (ws instanceof Response) return ws;
    return json({ views: await savedViewsOf(svc.db, c.get("cred").subjectId) });
  });

  // Everyone who reviews keeps their own views, viewers too.
  app.post("/api/v1/workspaces/:ws/review/views", async (c) => {
    const ws = workspaceScope(c, ["person"]);
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, SavedViewBody, "bad view", 16 * 1024);
    if (input instanceof Response) return input;
    const view = {
      id: newId("command").replace(/^cmd_/, "view_"),
      workspaceId: ws,
      personId: c.get("cred").subjectId,
      ...input.data,
    };
    await saveView(svc.db, view);
    return json({ id: view.id, name: view.name, query: view.query }, 201);
  });

  app.delete("/api/v1/workspaces/:ws/review/views/:view", async (c) => {
    const ws = workspaceScope(c, ["person"]);
    if (ws instanceof Response) return ws;
    if (!(await deleteView(svc.db, c.get("cred").subjectId, c.req.param("view"))))
      return fail("not_found", "you have no saved view by that id");
    return json({ deleted: c.req.param("view") });
  });

  // A verdict or comment on a run, one of its events or a line of its diff ([ANN1]): members and owners.
  app.post("/api/v1/runs/:run/annotations", async (c) => {
    const cred = personWriter(c, "annotations come from people");
    if (cred instanceof Response) return cred;
    // [HTTP2]: the body's 415/413/400/422 before the run's 404.
    const input = await parseBody(c, AnnotationBody, "bad annotation", 128 * 1024);
    if (input instanceof Response) return input;
    const run = await runOf(c);
    if (run instanceof Response) return run;
    const r = await annotate(svc, { ...cred, kind: "person" }, run, input.data);
    return r.ok
      ? new Response(r.body, { status: r.status, headers: { "content-type": "application/json" } })
      : problemResponse(r.problem);
  });

  // A window of a run's log, after a seq, of one type when asked ([REV3]): the run page's "show more".
  app.get("/api/v1/runs/:run/events", async (c) => {
    const run = await runOf(c);
    if (run instanceof Response) return run;
    const after = intParam(c.req.query("after"), "after", 0);
    if (after instanceof Response) return after;
    const limit = intParam(c.req.query("limit"), "limit", LOG_PAGE, 1000);
    if (limit instanceof Response) return limit;
    if (limit < 1) return fail("validation_failed", "limit must be at least 1", "/query/limit");
    const type = c.req.query("type") || undefined;
    if (type !== undefined && !(EVENT_TYPES as string[]).includes(type))
      return fail("validation_failed", "type must be an event type of the catalogue", "/query/type");
    const w = await runEventWindow(svc.db, run.id, { after, limit, types: type ? [type] : undefined });
    // The stored bodies as they are: the same bytes every other read serves.
    return new Response(`{"run_id":${JSON.stringify(run.id)},"events":[${w.bodies.join(",")}],"next":${w.next}}`, {
      headers: { "content-type": "application/json" },
    });
  });

  // One run: NDJSON of its events in seq order, or the one JSON document ([EXP1]).
  app.get("/api/v1/runs/:run/export", async (c) => {
    const run = await runOf(c);
    if (run instanceof Response) return run;
    return exported(c, run.workspace_id, [run.id], run.id);
  });

  // The runs of a view (at most EXPORT_RUNS, newest first by default).
  app.get("/api/v1/workspaces/:ws/review/export", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const f = filterOf(c);
    if (f instanceof Response) return f;
    await svc.review.settle(ws);
    const ids: string[] = [];
    let cursor = f.cursor;
    do {
      const page = await listReviewRuns(svc.db, ws, { ...f, cursor, limit: 200 });
      ids.push(...page.runs.map((r) => r.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor && ids.length < EXPORT_RUNS);
    return exported(c, ws, ids.slice(0, EXPORT_RUNS), `${ws}-runs`);
  });

  // Rollups ([ROL1]): per day/week or harness, agent, person, room, or tool calls per tool ([TOOL6]); JSON or a CSV download.
  app.get("/api/v1/workspaces/:ws/review/rollups", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const q = RollupQuery.safeParse(c.req.query());
    if (!q.success) return problemResponse(problem("validation_failed", "bad rollup", zodErrors("/query", q.error)));
    await svc.review.settle(ws);
    const rows = await rollup(svc.db, ws, q.data);
    if (q.data.format === "json") return json({ by: q.data.by, rows });
    return new Response(rollupCsv(q.data.by, rows, await directoryOf(svc.db, ws)), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="runs-by-${q.data.by}.csv"`,
      },
    });
  });

  shareRoutes(app, svc);

  app.post("/api/v1/workspaces/:ws/import", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "write");
    if (ws instanceof Response) return ws;
    const doc = await parseBody(c, ExportDocument, "not a Chips export document", IMPORT_BYTES);
    if (doc instanceof Response) return doc;
    const r = await importRuns(svc, ws, doc.data);
    if ("ok" in r) return problemResponse(r.problem);
    await svc.review.settle(ws);
    return json(r, r.stored > 0 ? 201 : 200);
  });

  async function exported(c: Context<ApiEnv>, ws: string, runIds: string[], name: string) {
    const format = c.req.query("format") ?? "json";
    if (format === "ndjson") {
      return new Response(await runNdjson(svc.db, runIds), {
        headers: {
          "content-type": "application/x-ndjson",
          "content-disposition": `attachment; filename="${name}.ndjson"`,
        },
      });
    }
    if (format !== "json") return fail("validation_failed", "format is json or ndjson", "/query/format");
    return new Response(JSON.stringify(await exportDocument(svc, ws, runIds)), {
      headers: { "content-type": "application/json", "content-disposition": `attachment; filename="${name}.json"` },
    });
  }

  const runOf = (c: Context<ApiEnv>) => runScope(svc, c);
}
