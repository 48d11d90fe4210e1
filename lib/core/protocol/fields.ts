import { z } from "zod";
import { canonicalId, ID_PREFIX, isId, type IdKind } from "./ids";
import { LIMITS } from "./limits";

// In a browser zod must not probe for eval (its JIT tries `Function("")`): the pages' CSP
// forbids eval, and the probe is reported as a violation. Servers keep the JIT (ingest).
if (typeof window !== "undefined") z.config({ jitless: true });

/**
 * A prefixed ULID of one kind, read case-insensitively and stored canonical (upper case).
 * Canonicalized by `.overwrite`, a check, not by `.transform`, a pipe: the same value out,
 * but every event carries 3–5 ids, and with pipes zod parsed a `message.posted` in ~13 µs
 * against ~2 µs now (docs/PERFORMANCE.md). A failed check's value is never returned.
 */
export function idOf(kind: IdKind) {
  return z
    .string()
    .regex(new RegExp(idPattern([kind])), {
      message: `must be a ${kind} id: ${ID_PREFIX[kind]} and a 26-character ULID`,
    })
    .overwrite(canonicalId);
}

/**
 * What `isId` accepts for any of `kinds`, as a regular expression: a character class rather
 * than the `i` flag, so the JSON Schema pattern says the same.
 */
function idPattern(kinds: IdKind[]): string {
  const prefixes = kinds.map((k) => ID_PREFIX[k]);
  const prefix = prefixes.length === 1 ? prefixes[0] : `(?:${prefixes.join("|")})`;
  return `^${prefix}[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`;
}

/**
 * Bytes `s` takes as UTF-8, without encoding it: the limits of `limits.ts` are bytes, as the
 * README says (a string of N characters may be up to 4N bytes; the store and the wire see bytes).
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4; // a surrogate pair is one code point of four bytes
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * The JSON Schema keyword of a byte limit ([SCH1]): JSON Schema counts characters, so the
 * served schemas say the limit in a keyword of their own, which a validator adds (with ajv,
 * `addKeyword({keyword, type: "string", validate: (max, s) => bytes of s <= max})`).
 */
export const MAX_BYTES_KEYWORD = "x-max-utf8-bytes";

/**
 * At most `max` UTF-8 bytes. `.max(max)` stays as the JSON Schema's `maxLength` (characters
 * never exceed bytes) beside the exact limit in `x-max-utf8-bytes`.
 */
const bytes = (s: z.ZodString, max: number) =>
  s
    .max(max, `at most ${max} bytes (UTF-8)`)
    .refine((v) => utf8Length(v) <= max, `at most ${max} bytes (UTF-8)`)
    .meta({ [MAX_BYTES_KEYWORD]: max });

export const text = (max: number) => bytes(z.string().min(1, "must not be empty"), max);
export const optionalText = (max: number) => bytes(z.string(), max);

/** Code points in `s`: what JSON Schema's `maxLength` counts (an emoji is one, not two UTF-16 units). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

/**
 * Counted in characters (code points, as JSON Schema's `maxLength` counts them) where
 * docs/PROTOCOL.md says characters ([ENV9] idempotency keys).
 */
export const chars = (max: number) =>
  z
    .string()
    .min(1, "must not be empty")
    .refine((v) => v.length <= max || codePoints(v) <= max, `at most ${max} characters`)
    .meta({ maxLength: max });

/** A model as an agent CLI names it (`-m` / `--model`): passed through, never interpreted ([RN5]). */
export const ModelName = text(200);
/**
 * A model provider a runner has configured for an agent ([RN5]): Codex's `model_provider`, an id
 * of its `model_providers` table. Claude Code has no such choice: its endpoint is the runner's.
 */
export const ProviderId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "a provider id (letters, digits, _ and -)");
/** Instructions for the agent beside the prompt: its system prompt (Claude Code) or developer instructions (Codex) ([RN5]). */
export const Instructions = optionalText(16_000);

export const Usage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cached_input_tokens: z.number().int().min(0).optional(),
  cost_usd: z.number().min(0).optional(),
});
/** Token use and cost, cumulative for the run. */
export type Usage = z.infer<typeof Usage>;

export const PlanStep = z.object({
  step_id: text(LIMITS.stepId),
  title: text(LIMITS.title),
});
/** One step of a run's plan: one dot on the run panel. */
export type PlanStep = z.infer<typeof PlanStep>;

/** Where a run's goal came from ([UI3]): a person at the harness, or a message in the room. */
export const GoalFrom = z.enum(["harness", "chips"]);
export type GoalFrom = z.infer<typeof GoalFrom>;

export const ActorKind = z.enum(["person", "harness", "agent", "system"]);
export type ActorKind = z.infer<typeof ActorKind>;

/** Which id an actor of each kind carries; a runner speaks as a harness with its `rnr_` id. */
const ACTOR_ID_KINDS: Record<ActorKind, IdKind[]> = {
  person: ["person"],
  harness: ["harness", "runner"],
  agent: ["agent"],
  system: [],
};

export const Actor = z
  .object({
    kind: ActorKind,
    id: z.string().min(1).max(64),
    harness_id: z.string().optional(),
  })
  .superRefine((a, ctx) => {
    const kinds = ACTOR_ID_KINDS[a.kind];
    const ok = a.kind === "system" ? a.id === "system" : kinds.some((k) => isId(k, a.id));
    if (!ok) ctx.addIssue({ code: "custom", path: ["id"], message: `not a valid id for a ${a.kind}` });
  })
  // Ids are read case-insensitively; stored canonical, so one agent is one agent ([ENV11]).
  // `.overwrite` (a check), not `.transform` (a pipe): see `idOf`.
  .overwrite((a) => ({ ...a, id: a.kind === "system" ? a.id : canonicalId(a.id) }))
  // [SCH1] the superRefine above, said in JSON Schema: the id's kind follows the actor's.
  .meta({
    allOf: ActorKind.options.map((kind) => ({
      if: { properties: { kind: { const: kind } }, required: ["kind"] },
      then: {
        properties: {
          id: kind === "system" ? { const: "system" } : { type: "string", pattern: idPattern(ACTOR_ID_KINDS[kind]) },
        },
      },
    })),
  });
/** Who an event is attributed to ([ENV10], [ENV11]). */
export type Actor = z.infer<typeof Actor>;

export const IsoTime = z.iso.datetime({ offset: true });
