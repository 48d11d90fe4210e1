import { ulid } from "ulid";

/** Id prefixes of docs/PROTOCOL.md (a prefix + a ULID). */
export const ID_PREFIX = {
  workspace: "ws_",
  space: "spc_",
  run: "run_",
  event: "evt_",
  harness: "hrn_",
  agent: "agt_",
  runner: "rnr_",
  person: "usr_",
  command: "cmd_",
  task: "tsk_",
  annotation: "ann_",
  /** A bearer token's public id (never the token). */
  token: "tok_",
  share: "shr_",
  /** A run's request for a person's input: a permission or a question ([ASK1]). */
  ask: "ask_",
  /** A workspace's webhook for new asks ([ASK7]), and one delivery to it. */
  webhook: "whk_",
  delivery: "dlv_",
} as const;
export type IdKind = keyof typeof ID_PREFIX;

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/** True when `value` is `<prefix><ULID>`; the ULID part is read case-insensitively. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== "string") return false;
  const prefix = ID_PREFIX[kind];
  if (!value.startsWith(prefix)) return false;
  const body = value.slice(prefix.length);
  // The first character of a ULID encodes at most 7 (48-bit timestamp).
  return ULID_RE.test(body) && body[0] <= "7";
}

/** Canonical form: the ULID part upper case, so ids compare by string equality. */
export function canonicalId(value: string): string {
  const at = value.indexOf("_");
  return value.slice(0, at + 1) + value.slice(at + 1).toUpperCase();
}

/**
 * The ULID's random characters from a pool of CSPRNG bytes refilled 4 KiB at a time: left to
 * itself, `ulid()` asks the platform for one byte per character (16 calls an id, ~150 µs on
 * Node 20 — a load generator's whole budget per event). A byte / 256 is uniform over the 32
 * Crockford characters, as ulid's own source is.
 */
const pool = new Uint8Array(4096);
let used = pool.length;
function randomFraction(): number {
  if (used === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    used = 0;
  }
  return pool[used++] / 256;
}

export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + ulid(undefined, randomFraction);
}
