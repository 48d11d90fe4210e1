import { z } from "zod";
import { idOf, text } from "./fields";
import { LIMITS } from "./limits";
import { event } from "./envelope";

/** A reviewer's verdicts and comments on a run, kept in the log ([ANN1]). */

/** A person's verdict on a run ([ANN1]). */
export const Verdict = z.enum(["approved", "needs_work", "rejected"]);
export type Verdict = z.infer<typeof Verdict>;

/** What an annotation is about: the whole run, one event of it (by seq), or one line of its diff. */
export const AnnotationTarget = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run") }),
  z.object({ kind: z.literal("event"), seq: z.number().int().min(1) }),
  z.object({
    kind: z.literal("diff"),
    path: text(4096),
    line: z.number().int().min(1),
    side: z.enum(["old", "new"]).optional(),
  }),
]);
export type AnnotationTarget = z.infer<typeof AnnotationTarget>;

/**
 * A reviewer's verdict and/or comment on a run, one of its events or a line of its diff
 * ([ANN1]–[ANN3], docs/REVIEW.md): in the log, so it replays, exports and reaches the room.
 * People send it through `POST /api/v1/runs/:run/annotations` only.
 */
export const RunAnnotated = event("run.annotated", {
  annotation_id: idOf("annotation"),
  verdict: Verdict.optional(),
  comment: text(LIMITS.text).optional(),
  target: AnnotationTarget,
})
  .superRefine((e, ctx) => {
    if (!e.verdict && !e.comment)
      ctx.addIssue({ code: "custom", path: ["comment"], message: "a verdict or a comment is required" });
  })
  // [SCH1] the superRefine above, said in JSON Schema.
  .meta({ anyOf: [{ required: ["verdict"] }, { required: ["comment"] }] });
