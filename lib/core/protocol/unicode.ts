/**
 * JSON lets a string escape half of a surrogate pair (`"\ud83d"`), but such text is not
 * Unicode: PostgreSQL's json refuses it, so it would fail a request deep in a write. A body
 * is checked once, where it is parsed.
 */

/** A lone surrogate (a high half without its low half, or a low half alone). */
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether JSON text may hold a lone surrogate: only through a `\uD800`–`\uDFFF` escape. */
export const mayHoldLoneSurrogate = (jsonText: string): boolean => /\\u[dD][89a-fA-F]/.test(jsonText);

/** The JSON pointer of the first string (value or key) in `value` holding a lone surrogate, or null. */
export function loneSurrogateAt(value: unknown, pointer = ""): string | null {
  if (typeof value === "string") return LONE.test(value) ? pointer : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = loneSurrogateAt(value[i], `${pointer}/${i}`);
      if (at !== null) return at;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const key = `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (LONE.test(k)) return key;
      const at = loneSurrogateAt(v, key);
      if (at !== null) return at;
    }
  }
  return null;
}
