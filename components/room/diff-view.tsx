"use client";

import { useMemo } from "react";
import { Diff, Hunk, parseDiff, type FileData, type HunkData } from "react-diff-view";
import "react-diff-view/style/index.css";

/** At most this many changed lines are drawn per file; the rest is noted, not drawn. */
const MAX_LINES_PER_FILE = 2000;
/** At most this many files are drawn. */
const MAX_FILES = 300;

export interface DiffFile {
  path: string;
  type: FileData["type"];
  binary: boolean;
  hunks: HunkData[];
  /** Changed lines in the file; more than drawn when truncated. */
  lines: number;
  truncated: boolean;
}

const pathOf = (f: FileData) => (f.newPath && f.newPath !== "/dev/null" ? f.newPath : f.oldPath);

/** Each `diff --git` block's path → whether git called it binary (gitdiff-parser does not say). */
function binaryPaths(text: string): Set<string> {
  const out = new Set<string>();
  for (const block of text.split(/^diff --git /m).slice(1)) {
    if (!/^(Binary files .* differ|GIT binary patch)$/m.test(block)) continue;
    const m = /^a\/(.*) b\/(.*)$/m.exec(block.split("\n", 1)[0] ?? "");
    if (m) out.add(m[2]).add(m[1]);
  }
  return out;
}

/** The first `max` changed lines of a file's hunks. */
function clip(hunks: HunkData[], max: number): { hunks: HunkData[]; lines: number; truncated: boolean } {
  const lines = hunks.reduce((n, h) => n + h.changes.length, 0);
  if (lines <= max) return { hunks, lines, truncated: false };
  const out: HunkData[] = [];
  let left = max;
  for (const h of hunks) {
    if (left <= 0) break;
    out.push(h.changes.length <= left ? h : { ...h, changes: h.changes.slice(0, left) });
    left -= h.changes.length;
  }
  return { hunks: out, lines, truncated: true };
}

/** A unified git diff, parsed into what is drawn. Unparseable text gives no files. */
function parseGitDiff(text: string, binaries: Set<string> = new Set()): DiffFile[] {
  let files: FileData[];
  try {
    files = parseDiff(text);
  } catch {
    return [];
  }
  const binary = binaryPaths(text);
  return files.map((f) => {
    const path = pathOf(f);
    const isBinary = !!f.isBinary || binary.has(path) || (binaries.has(path) && f.hunks.length === 0);
    return {
      path,
      type: f.type,
      binary: isBinary,
      ...(isBinary ? { hunks: [], lines: 0, truncated: false } : clip(f.hunks, MAX_LINES_PER_FILE)),
    };
  });
}

const TYPE: Record<FileData["type"], string> = {
  add: "added",
  delete: "deleted",
  modify: "modified",
  rename: "renamed",
  copy: "copied",
};

// react-diff-view's colours, set per scheme so text keeps AA contrast in light and dark.
const THEME =
  "[--diff-text-color:#18181b] [--diff-gutter-insert-background-color:#c9f2d0] [--diff-code-insert-background-color:#e6f9ea] [--diff-gutter-delete-background-color:#f9d3d7] [--diff-code-delete-background-color:#fcebed] [--diff-font-family:ui-monospace,SFMono-Regular,Menlo,monospace] " +
  "dark:[--diff-text-color:#e4e4e7] dark:[--diff-gutter-insert-background-color:#14532d] dark:[--diff-code-insert-background-color:#0f2e1b] dark:[--diff-gutter-delete-background-color:#7f1d1d] dark:[--diff-code-delete-background-color:#3b1215] dark:[--diff-code-insert-edit-background-color:#166534] dark:[--diff-code-delete-edit-background-color:#991b1b]";

/**
 * A run's diff, drawn with react-diff-view: one block per file, "Binary file" instead of
 * hunks for binaries, each file cut at {@link MAX_LINES_PER_FILE} changed lines. The text
 * is untrusted: it only ever becomes text nodes.
 */
export function DiffView({ text, binaries }: { text: string; binaries?: Set<string> }) {
  const files = useMemo(() => parseGitDiff(text, binaries), [text, binaries]);
  if (!files.length) {
    return (
      <p data-testid="diff" className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
        {text.trim() ? "This diff could not be read." : "The diff is empty."}
      </p>
    );
  }
  const shown = files.slice(0, MAX_FILES);
  return (
    <div data-testid="diff" className={`mt-2 space-y-3 text-xs ${THEME}`}>
      {shown.map((f, i) => (
        <section
          key={`${i}:${f.path}`}
          data-testid="diff-file"
          data-path={f.path}
          aria-label={`Diff of ${f.path}`}
          className="overflow-hidden rounded-md border border-zinc-200 dark:border-zinc-800"
        >
          <h5 className="flex flex-wrap items-baseline gap-x-2 border-b border-zinc-200 bg-zinc-50 px-2 py-1 font-mono text-[12px] dark:border-zinc-800 dark:bg-zinc-900">
            <span className="min-w-0 break-all font-medium">{f.path}</span>
            <span className="font-sans text-zinc-600 dark:text-zinc-400">{TYPE[f.type] ?? f.type}</span>
          </h5>
          {f.binary ? (
            <p data-testid="diff-binary" className="px-2 py-1.5 text-zinc-700 dark:text-zinc-300">
              Binary file
            </p>
          ) : f.hunks.length === 0 ? (
            <p className="px-2 py-1.5 text-zinc-700 dark:text-zinc-300">No line changes (mode or name only).</p>
          ) : (
            <div className="overflow-x-auto">
              <Diff viewType="unified" diffType={f.type} hunks={f.hunks}>
                {(hunks) => hunks.map((h, j) => <Hunk key={`${j}:${h.content}`} hunk={h} />)}
              </Diff>
            </div>
          )}
          {f.truncated && (
            <p
              data-testid="diff-truncated"
              className="border-t border-zinc-200 px-2 py-1 text-amber-900 dark:border-zinc-800 dark:text-amber-200"
            >
              Diff truncated: the first {MAX_LINES_PER_FILE.toLocaleString("en-US")} of{" "}
              {f.lines.toLocaleString("en-US")} changed lines are shown.
            </p>
          )}
        </section>
      ))}
      {files.length > shown.length && (
        <p data-testid="diff-truncated" className="text-amber-900 dark:text-amber-200">
          Diff truncated: {shown.length} of {files.length} files are shown.
        </p>
      )}
    </div>
  );
}
