"use client";

import { diffLines } from "diff";

/**
 * A line diff of two texts (jsdiff's `diffLines`: the maintained implementation of Myers'
 * algorithm, so no hand-written diff to get wrong). Each line says whether it was added,
 * removed or kept, in colour and in words for screen readers.
 */
export function TextDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const parts = diffLines(before, after);
  const rows: { change: "added" | "removed" | "same"; text: string }[] = [];
  for (const p of parts) {
    const change = p.added ? "added" : p.removed ? "removed" : "same";
    const lines = p.value.endsWith("\n") ? p.value.slice(0, -1).split("\n") : p.value.split("\n");
    for (const text of lines) rows.push({ change, text });
  }
  const changed = rows.some((r) => r.change !== "same");
  return (
    <figure
      data-testid="text-diff"
      aria-label={label}
      className="overflow-x-auto rounded-md border border-zinc-200 font-mono text-[13px] leading-5 dark:border-zinc-800"
    >
      {!changed && <p className="px-2 py-1 text-zinc-600 dark:text-zinc-400">No difference.</p>}
      {rows.map((r, i) => (
        <div
          key={i}
          data-change={r.change}
          className={
            r.change === "added"
              ? "bg-green-50 px-2 text-green-900 dark:bg-green-950 dark:text-green-200"
              : r.change === "removed"
                ? "bg-red-50 px-2 text-red-900 line-through decoration-red-400/60 dark:bg-red-950 dark:text-red-200"
                : "px-2 text-zinc-700 dark:text-zinc-300"
          }
        >
          <span aria-hidden className="mr-2 select-none">
            {r.change === "added" ? "+" : r.change === "removed" ? "−" : " "}
          </span>
          <span className="sr-only">
            {r.change === "added" ? "added: " : r.change === "removed" ? "removed: " : ""}
          </span>
          {r.text || "\u00a0"}
        </div>
      ))}
    </figure>
  );
}

/** The one text a revision's diff compares: its intent and its outcome under headings. */
export const revisionText = (r: { intent: string; outcome: string }) =>
  `# Intent\n${r.intent}\n\n# Outcome\n${r.outcome}\n`;
