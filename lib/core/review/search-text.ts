import type { StoredEvent } from "@/lib/core/protocol";

/**
 * The words of full-text search ([REV2]), made here rather than by PostgreSQL's parser: its
 * idea of a letter follows the database's locale (C on PGlite and on many clusters, where
 * "déjà" falls apart and Japanese is one long word), so the same text would be indexed
 * differently on the two databases. Text is folded (NFKD, marks dropped, NFC, lower case:
 * "Zürich" finds "zurich"); scripts written without spaces (Han, kana, Thai…) are indexed as
 * overlapping pairs of characters, so "請求書" finds "…の請求書を…". The database stores the
 * words as a tsvector (array_to_tsvector: no parser, no locale) under a GIN index, and a
 * query is a tsquery of quoted words, the last one a prefix.
 */

const SPACELESS =
  "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}";
const PARTS = new RegExp(`[${SPACELESS}]+|[^${SPACELESS}]+`, "gu");
const IS_SPACELESS = new RegExp(`^[${SPACELESS}]`, "u");
const WORD = /[\p{L}\p{N}]+/gu;
/** Longer "words" (hashes, base64) are left out of the index. */
const MAX_WORD = 64;

function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFC")
    .toLowerCase();
}

/** The words of a text, in order (repeats kept). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const [w] of fold(text).matchAll(WORD)) {
    for (const [part] of w.matchAll(PARTS)) {
      if (IS_SPACELESS.test(part)) {
        const chars = [...part];
        if (chars.length === 1) out.push(part);
        for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
      } else if (part.length <= MAX_WORD) out.push(part);
    }
  }
  return out;
}

/** The searchable text an event adds to its run: goals, messages, step titles, status phrases, command texts, outcomes. */
export function searchTextOf(e: StoredEvent): string | null {
  switch (e.type) {
    case "run.queued":
      return e.goal;
    case "run.started":
      return [e.goal, ...(e.plan ?? []).map((p) => p.title), e.session_ref ?? ""].join("\n");
    case "run.status":
      return e.verb_phrase;
    case "run.step":
      return [e.title ?? "", e.note ?? ""].join("\n");
    case "message.posted":
      return e.text;
    case "run.command":
      return e.text ?? null;
    case "run.command_acked":
      return e.reason ?? null;
    case "run.finished":
      return e.summary ?? null;
    case "runner.event":
      return e.kind === "failed" ? e.message : null;
    case "run.annotated":
      return e.comment ?? null;
    default:
      return null;
  }
}

/** A search box's text as a tsquery: every word must occur, the last may be the start of one. Null when it has no words. */
export function searchQuery(text: string): string | null {
  const ws = [...new Set(words(text))];
  if (!ws.length) return null;
  const last = fold(text).trimEnd();
  const tail = ws[ws.length - 1];
  // A whole word may go on ("deplo" finds "deploy"); so may one character of a spaceless script (its pairs start with it).
  const prefix = /[\p{L}\p{N}]$/u.test(last) && (!IS_SPACELESS.test(tail) || [...tail].length === 1);
  return ws.map((w, i) => `'${w}'${prefix && i === ws.length - 1 ? ":*" : ""}`).join(" & ");
}
