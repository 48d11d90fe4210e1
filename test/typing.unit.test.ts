import { describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "../lib/core/protocol";
import { emptyRuns, foldEvents } from "../lib/core/projection/fold";
import { typingRuns } from "../components/room/typing-indicator";
import { storedEvents } from "./support/stored-events";

/**
 * [UI2] Which runs the typing indicator shows, on runs folded from stored events as the room
 * folds its feed: a run whose agent waits for a person's answer is not at work. Its last
 * status ("Running npm test") was sent before it asked, and stays the newest while it waits.
 */
const ws = newId("workspace");
const space = newId("space");
const run = newId("run");
const ask = newId("ask");
const harness = { kind: "harness", id: newId("harness") };
const person = { kind: "person", id: newId("person") };
const t0 = Date.parse("2026-12-05T06:00:00Z");
const stored = storedEvents({ workspace_id: ws, space_id: space, run_id: run }, t0);

const started = stored("run.started", harness, { goal: "Test it" });
const status = stored("run.status", harness, { phase: "running", verb_phrase: "Running npm test" });
const asked = stored("run.asked", harness, {
  ask_id: ask,
  kind: "permission",
  tool: "Bash",
  summary: "npm test",
  command: "npm test",
});
const answered = stored("run.answered", person, { ask_id: ask, decision: "allow", option_id: "allow" });

const typing = (events: StoredEvent[]) =>
  typingRuns(Object.values(foldEvents(emptyRuns(), events).runs), t0 + 10_000, 60_000, () => false).map((r) => r.id);

describe("[UI2] the typing indicator", () => {
  it("shows a running run with a fresh status", () => {
    expect(typing([started, status])).toEqual([run]);
  });

  it("goes while the run waits for a person's answer, and is back once it is answered", () => {
    expect(typing([started, status, asked])).toEqual([]);
    expect(typing([started, status, asked, answered])).toEqual([run]);
  });
});
