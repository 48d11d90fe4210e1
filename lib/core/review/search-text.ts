import type { Run, StoredEvent } from "@/lib/core/protocol";

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
    case "tool.started":
      return e.summary;
    case "tool.finished":
      return [e.summary ?? "", e.error ?? ""].join("\n").trim() || null;
    case "run.asked":
      return askText(e);
    case "run.answered":
      return [e.text ?? "", e.note ?? ""].join("\n").trim() || null;
    default:
      return null;
  }
}

/**
 * Tool calls in search ([TOOL6]): words of their own, apart from the run's text, so "runs that
 * ran `npm publish`" finds exactly those and not a run whose goal only mentions it. A call adds
 * `tool:<name>`, `ran:<word>` for each word of its command (summary and input) and
 * `ran:<word>~<next word>` for each pair in a row (a phrase finds its words in order); a run
 * whose calls failed has `failed:tool` and `failed:<name>` (from its read model's tally).
 */
const toolKey = (name: string) => `tool:${fold(name).replace(/[^\p{L}\p{N}_.:/-]+/gu, "")}`;

/** `op:<word>` for each word of a text and `op:<word>~<next word>` for each pair in a row. */
function phraseWords(op: string, text: string): string[] {
  const ws = words(text);
  return [...ws.map((w) => `${op}:${w}`), ...ws.slice(1).map((w, i) => `${op}:${ws[i]}~${w}`)];
}

const ranWords = (text: string) => phraseWords("ran", text);

/** The tool words a call's event adds to its run. */
export function toolWords(e: StoredEvent): string[] {
  if (e.type !== "tool.started" && e.type !== "tool.finished") return [];
  if (!e.tool || !e.summary) return []; // a finish of a started call: its start said what it was
  // A call refused before it ran (a gate's denial, sent whole) was a call of its tool, and ran nothing.
  if (e.type === "tool.finished" && e.outcome === "denied") return [toolKey(e.tool)];
  return [toolKey(e.tool), ...ranWords(`${e.summary}\n${e.input ?? ""}`)];
}

/** The failure words of a run's calls, from its tally (failures only grow, so words added stay true). */
export function failureWords(run: Run): string[] {
  if (!run.tools?.failed) return [];
  return [
    "failed:tool",
    ...run.tools.by_tool.filter((t) => t.failed > 0).map((t) => `failed:${toolKey(t.tool).slice(5)}`),
  ];
}

/** What an ask asked, as words: its tool, summary and command, or its question. */
function askText(e: Extract<StoredEvent, { type: "run.asked" }>): string {
  return [e.tool ?? "", e.summary ?? "", e.command ?? "", e.question ?? ""].join("\n");
}

/**
 * Asks in search ([ASKR5]): like tool calls, words of their own. An ask adds `ask:permission`
 * or `ask:question` and `asked:<word>` (and `asked:<word>~<next>`) for each word of what it
 * asked (tool, summary, command; a question's text); a person's deny adds `denied:ask`, an
 * ask closed unanswered at its expiry `expired:ask`. Each is said by one event, so the index
 * adds it in whatever round sees that event.
 */
export function askWords(e: StoredEvent): string[] {
  switch (e.type) {
    case "run.asked":
      return [`ask:${e.kind}`, ...phraseWords("asked", askText(e))];
    case "run.answered":
      return e.decision === "deny" ? ["denied:ask"] : [];
    case "run.ask_closed":
      return e.reason === "expired" ? ["expired:ask"] : [];
    default:
      return [];
  }
}

/**
 * The operators of a query: `tool:NAME` (a call of that tool), `ran:WORD` or `ran:"A B"` (a
 * call whose command holds the words, a phrase in order), `failed:tool` (a failed call) and
 * `failed:NAME` (a failed call of that tool); for asks ([ASKR5]) `asked:WORD` or `asked:"A B"`,
 * `ask:permission|question`, `denied:ask` and `expired:ask`. Answers their words and the text left over.
 */
function operators(text: string): { lexemes: string[]; rest: string } {
  const lexemes: string[] = [];
  const rest = text.replace(
    /(?:^|\s)(tool|ran|failed|asked|ask|denied|expired):("[^"]*"|\S+)/gi,
    (_, op: string, arg: string) => {
      const value = arg.replace(/^"|"$/g, "");
      const kind = op.toLowerCase();
      if (kind === "ran" || kind === "asked") lexemes.push(...phraseWords(kind, value));
      else if (kind === "tool") lexemes.push(toolKey(value));
      else if (kind === "failed")
        lexemes.push(fold(value) === "tool" ? "failed:tool" : `failed:${toolKey(value).slice(5)}`);
      // ask:, denied:, expired: take one folded word (`ask:permission`, `denied:ask`); anything else matches no run.
      else lexemes.push(`${kind}:${words(value).join("")}`);
      return " ";
    },
  );
  return { lexemes: lexemes.filter((l) => !/:$|:~/.test(l)), rest };
}

const quoted = (w: string) => `'${w.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/**
 * A search box's text as a tsquery: every word must occur, the last may be the start of one;
 * operators (`tool:`, `ran:`, `failed:`, `asked:`, `ask:`, `denied:`, `expired:`) must match exactly. Null when it has no words.
 */
export function searchQuery(input: string): string | null {
  const { lexemes, rest: text } = operators(input);
  const ws = [...new Set(words(text))];
  const exact = [...new Set(lexemes)].map(quoted);
  if (!ws.length) return exact.length ? exact.join(" & ") : null;
  const last = fold(text).trimEnd();
  const tail = ws[ws.length - 1];
  // A whole word may go on ("deplo" finds "deploy"); so may one character of a spaceless script (its pairs start with it).
  const prefix = /[\p{L}\p{N}]$/u.test(last) && (!IS_SPACELESS.test(tail) || [...tail].length === 1);
  return [...exact, ...ws.map((w, i) => `'${w}'${prefix && i === ws.length - 1 ? ":*" : ""}`)].join(" & ");
}
