import { z } from "zod";
import { Outcome, type StoredEvent } from "./events";
import { AnnotationTarget, Verdict } from "./annotation-events";
import { LIMITS } from "./limits";
import { text } from "./fields";
import { canonicalId } from "./ids";
import { Run, RunState } from "./models";

/**
 * Review of past runs (docs/REVIEW.md): the runs page's filters as they stand in its URL
 * and in the API's query string, the rows it lists, and the export document an import
 * takes back. One schema for the page, the API and the CLI.
 */

/** What a run ended as, or where an unfinished one stands: the runs page's state filter. */
export const RunStatusFilter = z.enum([...RunState.options.filter((s) => s !== "finished"), ...Outcome.options]);
export type RunStatusFilter = z.infer<typeof RunStatusFilter>;

/** `unreviewed` filters finished runs without a verdict ([ANN1]). */
export const ReviewFilter = z.enum(["annotated", "unreviewed", ...Verdict.options]);

export const RunSort = z.enum(["started", "duration", "cost"]);
export type RunSort = z.infer<typeof RunSort>;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date, YYYY-MM-DD");
const seconds = z.coerce
  .number()
  .int()
  .min(0)
  .max(10 * 365 * 24 * 3600);
const yes = z.enum(["yes", "no"]);
const id = (prefix: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-Za-z]{26}$`), `an id starting ${prefix}_`)
    .transform(canonicalId);

/**
 * The runs page's view: every filter is a query parameter, so a view can be bookmarked,
 * saved and sent ([REV1]). Unknown parameters are ignored; a bad value is a 422 with its
 * parameter as the pointer (`/query/from`).
 */
export const RunFilter = z.object({
  q: z.string().max(200).optional(),
  status: RunStatusFilter.optional(),
  space: id("spc").optional(),
  /** A harness or runner id. */
  harness: z
    .string()
    .regex(/^(hrn|rnr)_[0-9A-Za-z]{26}$/, "a harness or runner id")
    .transform(canonicalId)
    .optional(),
  /** An agent: a runner's agent name (codex, claude) or an agent id. */
  agent: z.string().min(1).max(64).optional(),
  /** Who started the run (a person who queued it through Chips). */
  person: id("usr").optional(),
  /** Started on or after this day, before the end of this day (UTC). */
  from: day.optional(),
  to: day.optional(),
  min_duration: seconds.optional(),
  max_duration: seconds.optional(),
  change_set: yes.optional(),
  failed_checks: yes.optional(),
  review: ReviewFilter.optional(),
  sort: RunSort.optional(),
  dir: z.enum(["asc", "desc"]).optional(),
  /** Where the previous page ended (opaque). */
  cursor: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export type RunFilter = z.infer<typeof RunFilter>;

/** A query string's parameters as given: the first of each, trimmed; empty ones are left out rather than refused. */
function given(params: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    const one = Array.isArray(v) ? v[0] : v;
    if (typeof one === "string" && one.trim() !== "") out[k] = one.trim();
  }
  return out;
}

/** A query of the runs page's filters (and more, e.g. an export's format), read as `given` reads it. */
export const filterQuery = <S extends z.ZodObject>(schema: S) => z.preprocess(given, schema);

/** A view from a query string or a form. */
export const parseRunFilter = (params: Record<string, string | string[] | undefined>) =>
  filterQuery(RunFilter).safeParse(params);

/** The filter keys a view keeps (a saved view, a bookmark); paging is not part of a view. */
export const VIEW_KEYS = [
  "q",
  "status",
  "space",
  "harness",
  "agent",
  "person",
  "from",
  "to",
  "min_duration",
  "max_duration",
  "change_set",
  "failed_checks",
  "review",
  "sort",
  "dir",
] as const;

/** A view's query string, keys in one order, empty values left out. */
export function viewQuery(f: Partial<Record<string, unknown>>, keys: readonly string[] = VIEW_KEYS): string {
  const p = new URLSearchParams();
  for (const k of keys) {
    const v = f[k];
    if (v !== undefined && v !== null && v !== "") p.set(k, String(v));
  }
  return p.toString();
}

/**
 * What the runs page filters, sorts and shows of a run beside its state: taken from the run
 * read model (lib/core/review/facets.ts) into the review index.
 */
export const RunFacets = z.object({
  agent: z.string().nullable(),
  duration_ms: z.number().nullable(),
  steps_done: z.number().int(),
  steps_planned: z.number().int(),
  tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
  files: z.number().int().nullable(),
  additions: z.number().int().nullable(),
  deletions: z.number().int().nullable(),
  failed_checks: z.number().int().nullable(),
});
export type RunFacets = z.infer<typeof RunFacets>;

/** One row of the runs page: the run as the review index keeps it. */
export const RunListItem = RunFacets.extend({
  id: z.string(),
  space_id: z.string(),
  state: Run.shape.state,
  outcome: Run.shape.outcome,
  goal: z.string(),
  goal_from: Run.shape.goal_from,
  harness_id: z.string().nullable(),
  person_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  verdict: Verdict.nullable(),
  annotations: z.number().int(),
});
export type RunListItem = z.infer<typeof RunListItem>;

/** `GET /api/v1/workspaces/:ws/review/runs`: a page of runs and where the next one starts. */
export const RunListPage = z.object({ runs: z.array(RunListItem), next_cursor: z.string().nullable() });
export type RunListPage = z.infer<typeof RunListPage>;

/** A saved view of the runs page: a name and its query string ([REV1]). */
export const SavedViewBody = z.object({ name: z.string().trim().min(1).max(100), query: z.string().max(2000) });
export type SavedViewBody = z.infer<typeof SavedViewBody>;
export const SavedView = z.object({ id: z.string(), name: z.string(), query: z.string(), created_at: z.string() });
export type SavedView = z.infer<typeof SavedView>;

/**
 * `POST /api/v1/runs/:run/shares` ([SHR1]): how long the link lives (a second to 30 days,
 * a week when not said) and, optionally, the run's seqs it shows.
 */
export const ShareBody = z
  .object({
    expires_in_seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .default(7 * 24 * 3600),
    from_seq: z.number().int().min(1).optional(),
    to_seq: z.number().int().min(1).optional(),
  })
  .refine((b) => b.from_seq === undefined || b.to_seq === undefined || b.from_seq <= b.to_seq, {
    path: ["to_seq"],
    message: "to_seq is before from_seq",
  });
export type ShareBody = z.infer<typeof ShareBody>;

/** One open of a share link: when, and from which address and browser. */
export const ShareOpen = z.object({
  opened_at: z.string(),
  address: z.string().nullable(),
  user_agent: z.string().nullable(),
});
export type ShareOpen = z.infer<typeof ShareOpen>;

/** A share link as the workspace sees it (never its token), with every open. */
export const ShareLink = z.object({
  id: z.string(),
  run_id: z.string(),
  from_seq: z.number().int().nullable(),
  to_seq: z.number().int().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  revoked_by: z.string().nullable(),
  opens: z.array(ShareOpen),
});
export type ShareLink = z.infer<typeof ShareLink>;

/**
 * What a rollup groups runs by ([ROL1]): a day or week (UTC), or a harness, agent, person or
 * room — or the runs' tool calls by tool ([TOOL6]).
 */
export const RollupBy = z.enum(["day", "week", "harness", "agent", "person", "room", "tool"]);
export type RollupBy = z.infer<typeof RollupBy>;

/** The rollups page's and `GET …/review/rollups`'s query: a grouping and an optional span of days. */
export const RollupQuery = z.object({
  by: RollupBy.default("day"),
  from: day.optional(),
  to: day.optional(),
  format: z.enum(["json", "csv"]).default("json"),
});

/** One group of a rollup: its key (a day, a week's Monday, or an id; null for runs without one) and its figures. */
export const RollupRow = z.object({
  key: z.string().nullable(),
  runs: z.number().int(),
  /**
   * By tool only ([TOOL6]): the group's calls. Then `finished`, `failed`, `failure_rate` and
   * the percentiles are of the calls (their ends and times), and `runs` the runs that made them.
   */
  calls: z.number().int().optional(),
  finished: z.number().int(),
  failed: z.number().int(),
  /** failed ÷ finished; null when none finished. */
  failure_rate: z.number().nullable(),
  /** Median and 90th percentile of the finished runs' durations (continuous percentiles). */
  p50_ms: z.number().nullable(),
  p90_ms: z.number().nullable(),
  tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
});
export type RollupRow = z.infer<typeof RollupRow>;

/** The directory an export carries, so an import names people, harnesses and rooms as the source did. */
export const ExportDirectory = z.object({
  persons: z.record(z.string(), z.string()),
  harnesses: z.record(z.string(), z.object({ name: z.string(), kind: z.enum(["harness", "runner"]) })),
  rooms: z.record(z.string(), z.string()),
});
export type ExportDirectory = z.infer<typeof ExportDirectory>;

/**
 * One run, or a filtered set, as one JSON document ([EXP1]): each run's read model, its
 * events in seq order exactly as stored, and the directory to name them. NDJSON exports
 * are the same events, one per line.
 */
export const ExportDocument = z.object({
  chips_export: z.literal(1),
  exported_at: z.string(),
  workspace_id: z.string(),
  directory: ExportDirectory,
  runs: z.array(
    z.object({
      run: z.record(z.string(), z.unknown()),
      events: z.array(
        z.record(z.string(), z.unknown()).and(z.object({ seq: z.number().int(), type: z.string(), ts: z.string() })),
      ),
    }),
  ),
  /** The runs' artifacts (diffs, check output), base64, when the export carried them. */
  objects: z
    .array(z.object({ run_id: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), base64: z.string() }))
    .optional(),
});
export type ExportDocument = z.infer<typeof ExportDocument>;
export interface ExportedRun {
  run: Run;
  events: StoredEvent[];
}

/** What an import answers: each source run and the run it became here, and how many events were new. */
export const ImportAnswer = z.object({
  runs: z.array(z.object({ from: z.string(), to: z.string() })),
  stored: z.number().int(),
  replayed: z.number().int(),
});
export type ImportAnswer = z.infer<typeof ImportAnswer>;

/** `POST /api/v1/runs/:run/annotations`: a verdict and/or a comment on the run, one of its events, or a line of its diff ([ANN1]). */
export const AnnotationBody = z
  .object({
    verdict: Verdict.optional(),
    comment: text(LIMITS.text).optional(),
    target: AnnotationTarget.default({ kind: "run" }),
    idempotency_key: z.string().min(1).max(LIMITS.idempotencyKey),
  })
  .superRefine((b, ctx) => {
    if (!b.verdict && !b.comment)
      ctx.addIssue({ code: "custom", path: ["comment"], message: "a verdict or a comment is required" });
  });
export type AnnotationBody = z.infer<typeof AnnotationBody>;
