import { z } from "zod";
import { RollupQuery } from "./review";

/**
 * Time to answer rolled up ([ASKR6], [ASKR7] in docs/REVIEW.md): the rollups page's asks
 * tables and `GET …/review/rollups/asks` share these shapes; lib/core/review/asks.ts fills them.
 */

/** What asks are grouped by: the person who answered, or the agent of the asking run. */
export const AskRollupBy = z.enum(["person", "agent"]);
export type AskRollupBy = z.infer<typeof AskRollupBy>;

/** A tally of asks: how many, how each ended, and the median and p90 wait of the answered ones (ms). */
export const AskTally = z.object({
  count: z.number().int(),
  /** Every answer a person gave, a denial too. */
  answered: z.number().int(),
  /** The denials among the answered. */
  denied: z.number().int(),
  /** Nobody answered in time: the agent's default applied. */
  expired: z.number().int(),
  /** Answered at the agent, or the run finished or was cancelled first. */
  withdrawn: z.number().int(),
  /** Still open. */
  waiting: z.number().int(),
  /** Expired of all asks (0–1); null for none. */
  expired_share: z.number().nullable(),
  /** Median and 90th percentile of the answered asks' waits, from the ask to the first answer (continuous percentiles). */
  p50_ms: z.number().int().nullable(),
  p90_ms: z.number().int().nullable(),
});
export type AskTally = z.infer<typeof AskTally>;

/** One group: its key (a person id, an agent name; null for asks nobody answered, or runs with no agent) and its tally. */
export const AskRollupRow = AskTally.extend({ key: z.string().nullable() });
export type AskRollupRow = z.infer<typeof AskRollupRow>;

/** `GET …/review/rollups/asks`'s query: the runs rollup's span and format, its own grouping. */
export const AskRollupQuery = RollupQuery.omit({ by: true }).extend({ by: AskRollupBy.default("person") });
