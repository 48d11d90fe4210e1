import { z } from "zod";
import { canonicalId, ID_PREFIX, isId, type IdKind } from "./ids";
import { LIMITS } from "./limits";

/** A prefixed ULID of one kind, read case-insensitively and stored canonical (upper case). */
export function idOf(kind: IdKind) {
  // A character class rather than the `i` flag, so the JSON Schema pattern says the same.
  const pattern = new RegExp(`^${ID_PREFIX[kind]}[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`);
  return z
    .string()
    .regex(pattern, { message: `must be a ${kind} id: ${ID_PREFIX[kind]} and a 26-character ULID` })
    .transform(canonicalId);
}

export const text = (max: number) => z.string().min(1, "must not be empty").max(max, `at most ${max} characters`);
export const optionalText = (max: number) => z.string().max(max, `at most ${max} characters`);

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
  .transform((a) => ({ ...a, id: a.kind === "system" ? a.id : canonicalId(a.id) }));
/** Who an event is attributed to ([ENV10], [ENV11]). */
export type Actor = z.infer<typeof Actor>;

export const IsoTime = z.iso.datetime({ offset: true });
