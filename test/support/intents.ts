import fc from "fast-check";
import { taskIntents } from "./task-sequences";
import { toolIntent } from "./tool-sequences";
import { askIntents } from "./ask-sequences";

/**
 * The intents a property run draws (fast-check): "start run 1", "pause run 0", "ack run 2's
 * oldest open command"… — {@link SequenceWorld} in event-sequences.ts turns each into the
 * request a harness, runner or person would really send, or skips it when the run's state
 * does not allow it ([RUN1]).
 */

export const SLOTS = 4;
const slot = fc.integer({ min: 0, max: SLOTS - 1 });
const GoalFrom = fc.constantFrom("harness", "chips", undefined);

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

export const Intent = fc.oneof(
  w(
    2,
    fc.record({
      t: fc.constant("start"),
      run: slot,
      steps: fc.integer({ min: 0, max: 3 }),
      goalFrom: GoalFrom,
      agent: fc.boolean(),
      session: fc.boolean(),
    }),
  ),
  w(2, fc.record({ t: fc.constant("queue"), run: slot, routed: fc.boolean() })),
  w(3, fc.record({ t: fc.constant("take"), run: slot, steps: fc.integer({ min: 0, max: 3 }), goalFrom: GoalFrom })),
  w(
    4,
    fc.record({
      t: fc.constant("step"),
      run: slot,
      step: fc.integer({ min: 0, max: 4 }),
      state: fc.constantFrom("pending", "active", "done", "failed", "skipped"),
      note: fc.constantFrom(undefined, "", "checked twice"),
    }),
  ),
  w(
    3,
    fc.record({
      t: fc.constant("status"),
      run: slot,
      advance: fc.option(fc.double({ min: 0, max: 0.4, noNaN: true })),
      usage: fc.boolean(),
      eta: fc.boolean(),
    }),
  ),
  w(
    4,
    fc.record({
      t: fc.constant("command"),
      run: slot,
      command: fc.constantFrom("steer", "pause", "resume", "pause", "resume", "cancel"),
    }),
  ),
  w(2, fc.record({ t: fc.constant("poll"), who: fc.constantFrom("harness", "runner") })),
  w(
    4,
    fc.record({
      t: fc.constant("ack"),
      run: slot,
      nth: fc.integer({ min: 0, max: 2 }),
      result: fc.constantFrom("applied", "rejected"),
      reason: fc.boolean(),
    }),
  ),
  w(
    3,
    fc.record({
      t: fc.constant("runner"),
      run: slot,
      kind: fc.constantFrom("started", "log", "checkpoint", "change-set", "failed", "completed"),
      payload: fc.boolean(),
      empty: fc.boolean(),
    }),
  ),
  w(
    1,
    fc.record({
      t: fc.constant("finish"),
      run: slot,
      outcome: fc.constantFrom("succeeded", "failed", "cancelled"),
      usage: fc.boolean(),
      summary: fc.boolean(),
    }),
  ),
  w(1, fc.record({ t: fc.constant("message"), text: fc.constantFrom("hello", "**bold** move", "") })),
  // Room state (docs/PROTOCOL.md §6): a save on top of the current revision, or one left stale (refused: [ROOM1]).
  w(
    2,
    fc.record({
      t: fc.constant("room"),
      intent: fc.constantFrom(undefined, "", "Ship *it*", "Make the tests pass"),
      outcome: fc.constantFrom(undefined, "", "CI green"),
      stale: fc.boolean(),
    }),
  ),
  // Annotations ([ANN1], [ANN2]): a verdict and/or comment, in any state of a run.
  w(
    2,
    fc.record({
      t: fc.constant("annotate"),
      run: slot,
      verdict: fc.constantFrom(undefined, "approved", "needs_work", "rejected"),
      comment: fc.boolean(),
    }),
  ),
  // Decisions ([DEC1], [DEC2]): a new one, one superseding an active one, or a withdrawal.
  w(2, fc.record({ t: fc.constant("decide"), how: fc.constantFrom("new", "supersede", "withdraw"), pick: fc.nat(5) })),
  // Tasks ([TSK1]–[TSK3]): made or edited, and started (a run queued, or refused on unmet prerequisites).
  w(2, taskIntents.save),
  w(2, taskIntents.start),
  // Tool calls ([TOOL2], [TOOL4]): started, finished, or whole, in or out of a step.
  w(4, toolIntent),
  // Asks ([ASK1]–[ASK5]): asked, answered by a person, reported by the harness, or closed unanswered.
  w(3, askIntents.ask),
  w(3, askIntents.answer),
  w(2, askIntents.applied),
  w(1, askIntents.close),
);
export type Intent = typeof Intent extends fc.Arbitrary<infer T> ? T : never;

/** A sequence of intents: what one property run sends to one fresh workspace. */
export const Sequence = fc.array(Intent, { minLength: 4, maxLength: 40, size: "max" });
