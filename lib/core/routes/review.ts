import { z } from "zod";
import { AskRollupBy, AskRollupQuery, AskRollupRow } from "../protocol/ask-rollups";
import { EVENT_TYPES, StoredEvent } from "../protocol/events";
import { isId } from "../protocol/ids";
import { blankless, count, route, storedOrReplay } from "../protocol/route";
import {
  AnnotationBody,
  ExportDocument,
  filterQuery,
  ImportAnswer,
  RollupBy,
  RollupQuery,
  RollupRow,
  RunFilter,
  RunListPage,
  SavedView,
  SavedViewBody,
  ShareBody,
  ShareLink,
} from "../protocol/review";
import { LOG_PAGE } from "../review/run-log";

/**
 * Review of past runs (docs/REVIEW.md): the runs list with its filters and search, people's
 * saved views, annotations ([ANN1]), a run's log in windows ([REV3]), export and import
 * ([EXP1], [EXP2]), rollups ([ROL1]) and share links ([SHR1]). Reading is for anyone of the
 * workspace (viewers review); writing takes a member or an owner.
 */

/** Largest import body: an export with its artifacts. */
const IMPORT_BYTES = 64 * 1024 * 1024;
const FROM_PEOPLE = "use a session or a person token";
// otlp and otlp-json: the runs as GenAI spans, the body of an OTLP/HTTP traces request ([OTL7]).
const format = z.enum(["json", "ndjson", "otlp", "otlp-json"]).default("json");
const exportAnswer = {
  description: "the export, as a download",
  schema: ExportDocument.or(
    z
      .object({ resourceSpans: z.array(z.unknown()) })
      .describe("format=otlp-json: an OTLP/JSON ExportTraceServiceRequest"),
  ),
  also: {
    "application/x-ndjson": z.string().describe("one stored event a line, in seq order"),
    "application/x-protobuf": z.string().describe("format=otlp: a protobuf ExportTraceServiceRequest"),
  },
};

export const REVIEW_ROUTES = {
  reviewRuns: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/review/runs",
    summary: "A page of the workspace's runs, filtered, searched and sorted as the query says ([REV1])",
    tag: "Review",
    who: {},
    scope: "workspace",
    query: filterQuery(RunFilter),
    answers: {
      200: { description: "the page and how many runs match", schema: RunListPage.extend({ count: z.number().int() }) },
    },
    errors: [],
  }),
  views: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/review/views",
    summary: "The person's saved views of the runs page",
    tag: "Review",
    who: { kinds: ["person"] },
    scope: "workspace",
    answers: { 200: { description: "their views", schema: z.object({ views: z.array(SavedView) }) } },
    errors: [],
  }),
  saveView: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/review/views",
    summary: "Save a view of the runs page (viewers too: everyone who reviews keeps their own)",
    tag: "Review",
    who: { kinds: ["person"] },
    scope: "workspace",
    body: { schema: SavedViewBody, maxBytes: 16 * 1024, what: "bad view" },
    answers: { 201: { description: "saved", schema: SavedView.omit({ created_at: true }) } },
    errors: [],
  }),
  deleteView: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/review/views/:view",
    summary: "Delete one of the person's saved views",
    tag: "Review",
    who: { kinds: ["person"] },
    scope: "workspace",
    answers: { 200: { description: "deleted", schema: z.object({ deleted: z.string() }) } },
    errors: ["not_found"],
  }),
  annotate: route({
    method: "post",
    path: "/api/v1/runs/:run/annotations",
    summary:
      "A verdict or comment on a run, one of its events or a line of its diff; answers the stored `run.annotated`",
    tag: "Review",
    who: { kinds: ["person"], may: "write", refusal: `annotations come from people: ${FROM_PEOPLE}` },
    scope: "run",
    body: { schema: AnnotationBody, maxBytes: 128 * 1024, what: "bad annotation" },
    answers: storedOrReplay(StoredEvent, "stored"),
    errors: ["idempotency_key_reused", "rate_limited", "overloaded"],
  }),
  runEvents: route({
    method: "get",
    path: "/api/v1/runs/:run/events",
    summary: "A window of a run's log after a seq, of one type when asked ([REV3]): the run page's \"show more\"",
    tag: "Review",
    who: {},
    scope: "run",
    query: z.object({
      after: count("after", 0),
      limit: count("limit", LOG_PAGE, 1000),
      type: blankless(
        z.string().refine((t) => (EVENT_TYPES as string[]).includes(t), "type must be an event type of the catalogue"),
      ),
    }),
    answers: {
      200: {
        description: "the window; `next` is the seq to ask after for the next one, null at the end",
        schema: z.object({ run_id: z.string(), events: z.array(StoredEvent), next: z.number().int().nullable() }),
      },
    },
    errors: [],
  }),
  exportRun: route({
    method: "get",
    path: "/api/v1/runs/:run/export",
    summary: "One run as one JSON document, its events as NDJSON ([EXP1]), or GenAI spans as OTLP ([OTL7])",
    tag: "Review",
    who: {},
    scope: "run",
    query: z.object({ format }),
    answers: { 200: exportAnswer },
    errors: [],
  }),
  reviewExport: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/review/export",
    summary:
      "The runs of a view (at most 1000, newest first unless sorted) as one export ([EXP1]) or as GenAI spans ([OTL7])",
    tag: "Review",
    who: {},
    scope: "workspace",
    query: filterQuery(RunFilter.extend({ format })),
    answers: { 200: exportAnswer },
    errors: [],
  }),
  rollups: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/review/rollups",
    summary:
      "Runs rolled up per day, week, harness, agent, person or room, or tool calls per tool ([ROL1], [TOOL6]); JSON or a CSV download",
    tag: "Review",
    who: {},
    scope: "workspace",
    query: RollupQuery,
    answers: {
      200: {
        description: "one row a group",
        schema: z.object({ by: RollupBy, rows: z.array(RollupRow) }),
        also: { "text/csv": z.string().describe("the same rows, with names") },
      },
    },
    errors: [],
  }),
  askRollups: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/review/rollups/asks",
    summary:
      "Time to answer the asks made in a span, per person who answered or per agent of the asking run ([ASKR7]); JSON or a CSV download",
    tag: "Review",
    who: {},
    scope: "workspace",
    query: AskRollupQuery,
    answers: {
      200: {
        description: "one row a group; `asks` how many were read, `capped` when only the newest 20,000 were",
        schema: z.object({
          by: AskRollupBy,
          asks: z.number().int(),
          capped: z.boolean(),
          rows: z.array(AskRollupRow),
        }),
        also: { "text/csv": z.string().describe("the same rows, with names") },
      },
    },
    errors: [],
  }),
  importRuns: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/import",
    summary: "Import an export: each run under a new id, its events as they were ([EXP2])",
    tag: "Review",
    who: { kinds: ["admin", "person"], may: "write" },
    scope: "workspace",
    body: { schema: ExportDocument, maxBytes: IMPORT_BYTES, what: "not a Chips export document" },
    answers: {
      200: { description: "nothing new: every run was imported before", schema: ImportAnswer },
      201: { description: "imported", schema: ImportAnswer },
    },
    errors: ["rate_limited", "overloaded"],
  }),
} as const;

export const SHARE_ROUTES = {
  createShare: route({
    method: "post",
    path: "/api/v1/runs/:run/shares",
    summary:
      "A read-only link to a run, or a range of its seqs ([SHR1]); its URL (with the token) is answered this once",
    tag: "Shares",
    who: { kinds: ["person"], may: "write", refusal: `share links are made by people: ${FROM_PEOPLE}` },
    scope: "run",
    body: { schema: ShareBody, maxBytes: 16 * 1024, what: "bad share link", nullAs: {} },
    answers: { 201: { description: "the link", schema: z.object({ link: ShareLink, url: z.string() }) } },
    errors: [],
  }),
  shares: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/shares",
    summary: "The workspace's share links (or one run's) with every open",
    tag: "Shares",
    who: {},
    scope: "workspace",
    query: z.object({
      run: z
        .string()
        .refine((r) => isId("run", r), "run must be a run id")
        .optional(),
    }),
    answers: { 200: { description: "the links", schema: z.object({ shares: z.array(ShareLink) }) } },
    errors: [],
  }),
  revokeShare: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/shares/:share",
    summary: "Revoke a share link (its maker, an owner or the admin)",
    tag: "Shares",
    who: {},
    scope: "workspace",
    answers: {
      200: {
        description: "revoked; `already` when it was before",
        schema: z.object({ revoked: z.string(), already: z.boolean() }),
      },
    },
    errors: ["forbidden", "not_found"],
  }),
} as const;
