import { z } from "zod";
import { idOf, Instructions, ModelName, optionalText, ProviderId, text } from "./fields";
import { LIMITS } from "./limits";
import { event } from "./envelope";

/** Events people record in a room: its state ([ROOM1]), its decisions ([DEC1]) and its tasks ([TSK1]). */

export const RoomUpdated = event("room.updated", {
  revision: z.number().int().min(1),
  intent: optionalText(LIMITS.text).optional(),
  outcome: optionalText(LIMITS.text).optional(),
});

export const DecisionStatus = z.enum(["active", "superseded"]);
export type DecisionStatus = z.infer<typeof DecisionStatus>;
/**
 * A decision of the room ([DEC1], [DEC2]): recorded `active`, optionally superseding an active
 * one (`supersedes`, Chips' v1 minor addition); re-recorded `superseded` to withdraw it.
 */
export const DecisionRecorded = event("decision.recorded", {
  decision_id: text(LIMITS.stepId),
  title: text(LIMITS.title),
  text: text(LIMITS.text),
  status: DecisionStatus,
  supersedes: text(LIMITS.stepId).optional(),
});

export const TaskSaved = event("task.saved", {
  task_id: idOf("task"),
  title: text(LIMITS.title),
  prompt: text(LIMITS.text),
  prompt_version: z.number().int().min(1),
  write_scope: z.array(text(LIMITS.title)).max(100),
  prerequisites: z.array(idOf("task")).max(100),
  /** [TSK4] start by itself once every prerequisite has succeeded. */
  auto_start: z.boolean().optional(),
  /** Defaults of the task's runs (a start may override them). */
  repository: text(LIMITS.name).optional(),
  base_branch: text(LIMITS.name).optional(),
  agent: text(LIMITS.phase).optional(),
  profile: text(LIMITS.phase).optional(),
  model: ModelName.optional(),
  provider: ProviderId.optional(),
  instructions: Instructions.optional(),
});
