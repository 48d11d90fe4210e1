/**
 * JSON lets a string escape half of a surrogate pair (`"\ud83d"`), but such text is not
 * Unicode: PostgreSQL's json refuses it. JSON also lets a string escape U+0000 (`"\u0000"`),
 * which is Unicode but which PostgreSQL's text and jsonb cannot hold. Either would fail a
 * request deep in a write; a body is checked once, where it is parsed.
 */

/** A lone surrogate (a high half without its low half, or a low half alone). */
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether JSON text may hold text the store cannot: only through a `\uD800`–`\uDFFF` or `\u0000` escape. */
export const mayHoldUnstorableText = (jsonText: string): boolean => /\\u(?:[dD][89a-fA-F]|0000)/.test(jsonText);

/** Why a string cannot be stored, or null when it can. */
function unstorable(s: string): string | null {
  if (LONE.test(s)) return "escapes half of a surrogate pair: text must be valid Unicode";
  if (s.includes("\u0000")) return "holds U+0000 (NUL), which Chips cannot store";
  return null;
}

/** The JSON pointer of the first string (value or key) in `value` the store cannot hold, and why; or null. */
export function unstorableTextAt(value: unknown, pointer = ""): { pointer: string; why: string } | null {
  if (typeof value === "string") {
    const why = unstorable(value);
    return why ? { pointer, why } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = unstorableTextAt(value[i], `${pointer}/${i}`);
      if (at !== null) return at;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const key = `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      const why = unstorable(k);
      if (why) return { pointer: key, why };
      const at = unstorableTextAt(v, key);
      if (at !== null) return at;
    }
  }
  return null;
}

const LONE_ALL = new RegExp(LONE.source, "g");
const SURROGATE = /[\ud800-\udfff]/;

/** `s` with each lone surrogate and each U+0000 replaced by U+FFFD, the replacement character. */
export function storableText(s: string): string {
  const nul = s.includes("\u0000");
  if (!nul && !SURROGATE.test(s)) return s; // the common case: one scan, nothing made
  const paired = s.replace(LONE_ALL, "\ufffd");
  return nul ? paired.replaceAll("\u0000", "\ufffd") : paired;
}

/**
 * `value` with every string (values and keys) made storable: for text Chips relays rather
 * than judges — telemetry, an agent's output — where one bad character must not cost the
 * whole record. What holds nothing to replace is answered as it is, not copied.
 */
export function storable<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const s = storable(v);
      if (s !== v) (out ??= value.slice())[i] = s;
    }
    return (out ?? value) as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k in obj) {
    const v = obj[k];
    const key = storableText(k);
    const s = storable(v);
    if (key === k && s === v) continue;
    const copy: Record<string, unknown> = (out ??= { ...obj });
    if (key !== k) delete copy[k];
    copy[key] = s;
  }
  return (out ?? value) as T;
}
