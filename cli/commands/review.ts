import fs from "node:fs";
import { resolvePersonToken, resolveUrl } from "../config";
import { CliError, UsageError } from "../errors";
import { call, getText } from "../http";
import { workspaceFor } from "../workspace";
import type { CommandContext, Options } from "./context";

/** The options of `chips export` and `chips import`. */
export type ReviewCliOptions = Options & {
  format?: string;
  filter?: string;
  output?: string;
  otlp?: string;
  "otlp-headers"?: string;
};

/**
 * `chips export RUN [--format json|ndjson] [--output FILE]`, or `chips export [--workspace WS]
 * --filter "status=failed&q=invoice"` for a view's runs of the token's workspace (docs/REVIEW.md
 * [EXP1]): the export, to a file or standard output.
 */
export async function exportRuns({ opts, args, env, io }: CommandContext & { opts: ReviewCliOptions }): Promise<void> {
  const format = opts.otlp !== undefined ? "otlp" : (opts.format ?? "json");
  if (opts.otlp !== undefined && opts.format) throw new UsageError("--otlp sends spans: leave out --format");
  if (format !== "json" && format !== "ndjson" && format !== "otlp")
    throw new UsageError(`--format is json or ndjson (got "${format}")`);
  if (args.length > 1) throw new UsageError("export takes one run id, or --filter (and --workspace)");
  const client = { url: resolveUrl(opts, env), token: resolvePersonToken(opts, env) };
  let path: string;
  if (args.length === 1) path = `/api/v1/runs/${encodeURIComponent(args[0])}/export?format=${format}`;
  else {
    const ws = await workspaceFor(client, opts.workspace);
    path = `/api/v1/workspaces/${encodeURIComponent(ws)}/review/export?format=${format}${opts.filter ? `&${opts.filter.replace(/^\?/, "")}` : ""}`;
  }
  if (opts.otlp !== undefined) {
    const { sendOtlp } = await import("../otlp");
    const sent = await sendOtlp(client, path, opts.otlp, opts["otlp-headers"] ?? env.OTEL_EXPORTER_OTLP_HEADERS ?? "");
    io.out(`sent ${sent.bytes} bytes of spans to ${sent.url}: ${sent.answer}`);
    return;
  }
  const text = await getText(client, path);
  if (opts.output) {
    fs.writeFileSync(opts.output, text);
    io.out(`wrote ${opts.output} (${Buffer.byteLength(text)} bytes)`);
  } else io.out(text.replace(/\n$/, ""));
}

/** An NDJSON export as the import's document: its events grouped by run, no names. */
function fromNdjson(text: string) {
  const events = text
    .split("\n")
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as { run_id?: string; workspace_id?: string };
      } catch {
        throw new CliError([`error invalid_json: line ${i + 1} of the file is not JSON`]);
      }
    });
  const byRun = new Map<string, unknown[]>();
  for (const e of events) if (e.run_id) (byRun.get(e.run_id) ?? byRun.set(e.run_id, []).get(e.run_id)!).push(e);
  return {
    chips_export: 1,
    exported_at: new Date().toISOString(),
    workspace_id: events[0]?.workspace_id ?? "",
    directory: { persons: {}, harnesses: {}, rooms: {} },
    runs: [...byRun].map(([id, evs]) => ({ run: { id }, events: evs })),
  };
}

/** `chips import FILE [--workspace WS]`: re-ingest an export (JSON or NDJSON) into the token's workspace ([EXP2]). */
export async function importRuns({ opts, args, env, io }: CommandContext): Promise<void> {
  if (args.length !== 1) throw new UsageError("import takes one file (a JSON or NDJSON export)");
  const client = { url: resolveUrl(opts, env), token: resolvePersonToken(opts, env) };
  let text: string;
  try {
    text = fs.readFileSync(args[0], "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${args[0]}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = fromNdjson(text);
  }
  const ws = await workspaceFor(client, opts.workspace);
  const r = await call<{ runs: { from: string; to: string }[]; stored: number; replayed: number }>(
    client,
    "POST",
    `/api/v1/workspaces/${encodeURIComponent(ws)}/import`,
    JSON.stringify(doc),
  );
  for (const x of r.runs) io.out(`${x.from} → ${x.to}`);
  io.out(`stored ${r.stored} events, ${r.replayed} already there`);
}
