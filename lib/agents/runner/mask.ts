/**
 * [RN4] Secret masking: a secret's value lives with the runner and is given to the agent's
 * process, but must never leave the runner in an event, a log line or an object. Everything
 * the runner publishes passes through a {@link SecretMask} first.
 */

/**
 * Values shorter than this are not masked. A 1–3 character "secret" (`a`, `42`, `yes`)
 * occurs by chance all over ordinary output, so masking it would destroy the transcript
 * and the diff while protecting nothing: a value that short is guessable anyway.
 */
export const MIN_SECRET_LENGTH = 4;

interface Needle {
  value: string;
  token: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The same string as one char per UTF-8 byte, so one regex serves text and bytes alike. */
function asLatin1(s: string): string {
  return Buffer.from(s, "utf8").toString("latin1");
}

/**
 * Replaces every occurrence of each secret value — and of its base64 form, as in a
 * `Authorization: Basic …` header or a config dump — with `[masked:NAME]`.
 */
export class SecretMask {
  private readonly textRe: RegExp | null;
  private readonly byteRe: RegExp | null;
  private readonly tokens = new Map<string, string>();
  private readonly byteTokens = new Map<string, string>();
  /** The longest needle, in UTF-16 units: how much of a stream may hold a split secret. */
  private readonly maxLen: number;

  /** @param secrets environment variable name → value. */
  constructor(secrets: Record<string, string>) {
    const needles: Needle[] = [];
    // Sorted by name so that two secrets with one value mask deterministically (first name wins).
    for (const name of Object.keys(secrets).sort()) {
      const value = secrets[name];
      if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) continue;
      const token = `[masked:${name}]`;
      const b64 = Buffer.from(value, "utf8").toString("base64");
      for (const v of new Set([value, b64, b64.replace(/=+$/, "")])) needles.push({ value: v, token });
    }
    for (const n of needles) if (!this.tokens.has(n.value)) this.tokens.set(n.value, n.token);
    for (const [v, t] of this.tokens) this.byteTokens.set(asLatin1(v), t);
    // Longest first: at any position the alternation takes the first branch that matches, so a
    // secret that contains another is masked whole, not as one token plus a readable remainder.
    const byLength = (a: string, b: string) => b.length - a.length;
    const values = [...this.tokens.keys()].sort(byLength);
    const bytes = [...this.byteTokens.keys()].sort(byLength);
    this.textRe = values.length ? new RegExp(values.map(escapeRegExp).join("|"), "g") : null;
    this.byteRe = bytes.length ? new RegExp(bytes.map(escapeRegExp).join("|"), "g") : null;
    this.maxLen = values.reduce((m, v) => Math.max(m, v.length), 0);
  }

  /** The text with every secret replaced. */
  text(s: string): string {
    if (!this.textRe) return s;
    return s.replace(this.textRe, (m) => this.tokens.get(m)!);
  }

  /** The bytes with every secret's UTF-8 bytes replaced; all other bytes are kept exactly. */
  bytes(b: Buffer): Buffer {
    if (!this.byteRe) return b;
    // latin1 maps each byte to one char and back, so non-UTF-8 data (a binary diff) survives.
    const s = b.toString("latin1");
    this.byteRe.lastIndex = 0;
    if (!this.byteRe.test(s)) return b;
    return Buffer.from(
      s.replace(this.byteRe, (m) => this.byteTokens.get(m)!),
      "latin1",
    );
  }

  /** Whether the text or bytes contain any secret (e.g. to refuse publishing an object). */
  has(s: string | Buffer): boolean {
    const re = typeof s === "string" ? this.textRe : this.byteRe;
    if (!re) return false;
    re.lastIndex = 0;
    const found = re.test(typeof s === "string" ? s : s.toString("latin1"));
    re.lastIndex = 0;
    return found;
  }

  /**
   * A masker for one stream of text chunks, where a secret may be split across two chunks.
   * Each call returns what is safe to publish so far; it holds back the last `maxLen - 1`
   * characters, the most that can be the start of a secret still arriving. Pass
   * `final = true` on the last chunk (it may be "") to flush what was held back.
   */
  stream(): (chunk: string, final?: boolean) => string {
    let held = "";
    return (chunk: string, final = false) => {
      const buf = held + chunk;
      if (final || !this.textRe) {
        held = "";
        return this.text(buf);
      }
      let cut = buf.length - (this.maxLen - 1);
      // Never split a surrogate pair: half a character would be published as garbage.
      if (cut > 0 && cut < buf.length && isHighSurrogate(buf.charCodeAt(cut - 1))) cut--;
      if (cut <= 0) {
        held = buf;
        return "";
      }
      // A match that starts before the cut is fully inside `buf` (no needle is longer than
      // maxLen), so it is decided exactly as over the whole stream; later ones must wait.
      const re = this.textRe;
      re.lastIndex = 0;
      let out = "";
      let pos = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(buf)) !== null && m.index < cut) {
        out += buf.slice(pos, m.index) + this.tokens.get(m[0])!;
        pos = m.index + m[0].length;
      }
      re.lastIndex = 0;
      const end = Math.max(pos, cut);
      out += buf.slice(pos, end);
      held = buf.slice(end);
      return out;
    };
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
