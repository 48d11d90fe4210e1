import type { z } from "zod";
import { newId, problemAt } from "@/lib/core/protocol";
import { REVIEW_ROUTES } from "@/lib/core/routes";
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
import { askRollupCsv, rollupCsv } from "@/lib/core/review/rollups";
import { askRollups } from "../review/ask-stats";
import { annotate } from "../review/annotate";
import { exportDocument, runNdjson } from "../review/export";
import { runsAsSpans, serializeSpans } from "../otel/otlp-out";
import { importRuns } from "../review/import";
import type { ChipsServices } from "../services";
import type { Handlers } from "./adapter";

type ExportFormat = z.output<typeof REVIEW_ROUTES.exportRun.query>["format"];

/** A CSV answer as a download named `name`.csv, with any more headers. */
const csvDownload = (raw: string, name: string, more: Record<string, string> = {}) => ({
  status: 200 as const,
  raw,
  headers: {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="${name}.csv"`,
    ...more,
  },
});

/** Most runs one filtered export takes. */
const EXPORT_RUNS = 1000;

/**
 * The handlers of lib/core/routes/review.ts: the runs list, saved views, annotations, a run's
 * log, export and import, rollups (docs/REVIEW.md). Lists settle the review index first.
 */
export function reviewHandlers(
  svc: Pick<ChipsServices, "db" | "objects" | "review" | "writer">,
): Handlers<typeof REVIEW_ROUTES> {
  /**
   * One JSON document or NDJSON, as a download named `name` ([EXP1]); or the runs as GenAI spans,
   * the body of an OTLP/HTTP traces request ([OTL7]), which `chips export --otlp` posts on.
   */
  async function exported(ws: string, runIds: string[], name: string, format: ExportFormat) {
    if (format === "otlp" || format === "otlp-json") {
      const json = format === "otlp-json";
      const bytes = serializeSpans(await runsAsSpans(svc.db, ws, runIds), json ? "json" : "protobuf", ws);
      return {
        status: 200 as const,
        raw: json ? Buffer.from(bytes).toString("utf8") : Buffer.from(bytes),
        headers: {
          "content-type": json ? "application/json" : "application/x-protobuf",
          "content-disposition": `attachment; filename="${name}.otlp${json ? ".json" : ".pb"}"`,
        },
      };
    }
    const ndjson = format === "ndjson";
    const headers: Record<string, string> = {
      "content-type": ndjson ? "application/x-ndjson" : "application/json",
      "content-disposition": `attachment; filename="${name}.${format}"`,
    };
    const raw = ndjson ? await runNdjson(svc.db, runIds) : JSON.stringify(await exportDocument(svc, ws, runIds));
    return { status: 200 as const, raw, headers };
  }

  return {
    reviewRuns: async ({ ws, query }) => {
      await svc.review.settle(ws);
      try {
        const [page, count] = await Promise.all([
          listReviewRuns(svc.db, ws, query),
          countReviewRuns(svc.db, ws, query),
        ]);
        return { status: 200, body: { ...page, count } };
      } catch (e) {
        if (e instanceof BadCursor) return problemAt("validation_failed", e.message, "/query/cursor");
        throw e;
      }
    },

    views: async ({ cred }) => ({ status: 200, body: { views: await savedViewsOf(svc.db, cred.subjectId) } }),
    saveView: async ({ cred, ws, body }) => {
      const view = {
        id: newId("command").replace(/^cmd_/, "view_"),
        workspaceId: ws,
        personId: cred.subjectId,
        ...body,
      };
      await saveView(svc.db, view);
      return { status: 201, body: { id: view.id, name: view.name, query: view.query } };
    },
    deleteView: async ({ cred, params }) =>
      (await deleteView(svc.db, cred.subjectId, params.view))
        ? { status: 200, body: { deleted: params.view } }
        : problemAt("not_found", "you have no saved view by that id", "/path/view"),

    annotate: async ({ cred, run, body }) => {
      const r = await annotate(svc, { ...cred, kind: "person" }, run, body);
      return r.ok ? { status: r.status, raw: r.body } : r.problem;
    },

    runEvents: async ({ run, query }) => {
      if (query.limit < 1) return problemAt("validation_failed", "limit must be at least 1", "/query/limit");
      const w = await runEventWindow(svc.db, run.id, {
        after: query.after,
        limit: query.limit,
        types: query.type ? [query.type] : undefined,
      });
      // The stored bodies as they are: the same bytes every other read serves.
      return {
        status: 200,
        raw: `{"run_id":${JSON.stringify(run.id)},"events":[${w.bodies.join(",")}],"next":${w.next}}`,
      };
    },

    exportRun: ({ run, query }) => exported(run.workspace_id, [run.id], run.id, query.format),
    reviewExport: async ({ ws, query }) => {
      await svc.review.settle(ws);
      const ids: string[] = [];
      let cursor = query.cursor;
      do {
        const page = await listReviewRuns(svc.db, ws, { ...query, cursor, limit: 200 });
        ids.push(...page.runs.map((r) => r.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor && ids.length < EXPORT_RUNS);
      return exported(ws, ids.slice(0, EXPORT_RUNS), `${ws}-runs`, query.format);
    },

    rollups: async ({ ws, query }) => {
      await svc.review.settle(ws);
      const rows = await rollup(svc.db, ws, query);
      if (query.format === "json") return { status: 200, body: { by: query.by, rows } };
      return csvDownload(rollupCsv(query.by, rows, await directoryOf(svc.db, ws)), `runs-by-${query.by}`);
    },

    // The rollups page's own read and fold ([ASKR6]), one grouping of it ([ASKR7]).
    askRollups: async ({ ws, query }) => {
      await svc.review.settle(ws);
      const { rows, asks, capped } = await askRollups(svc.db, ws, query);
      if (query.format === "json") return { status: 200, body: { by: query.by, asks, capped, rows: rows[query.by] } };
      // What JSON says in `asks` and `capped`, for a file that has no place for them.
      return csvDownload(askRollupCsv(query.by, rows[query.by], await directoryOf(svc.db, ws)), `asks-by-${query.by}`, {
        "chips-asks-read": String(asks),
        "chips-asks-capped": String(capped),
      });
    },

    importRuns: async ({ ws, body }) => {
      const r = await importRuns(svc, ws, body);
      if ("ok" in r) return r.problem;
      await svc.review.settle(ws);
      return r.stored > 0 ? { status: 201, body: r } : { status: 200, body: r };
    },
  };
}
