import { z } from "zod";
import { StoredEvent } from "../protocol/events";
import { CommandBody, CommandsPage, RunCommandsAnswer } from "../protocol/http";
import { count, route, storedOrReplay } from "../protocol/route";
import { ObjectRef, RunnerHello, StartRunBody } from "../protocol/runner-contract";

/**
 * Runs from the outside (docs/API.md): people's commands and their receipts ([RUN1]), a
 * harness's poll for its commands ([RT3]), and runner runs — starting one, its runner events
 * and its objects (docs/PROTOCOL.md §5, [RN2], [RN3]).
 */

const ingestRefusals = ["run_finished", "invalid_transition", "rate_limited", "overloaded"] as const;
const FROM_PEOPLE = "use a session or a person token";

/** `POST /api/v1/runs` and a task's start: the run made and the events that made it. */
export const RunStarted = z.object({ run_id: z.string(), events: z.array(StoredEvent) });

/** A runner online now (on this node), as the start form offers it. */
export const OnlineRunner = RunnerHello.omit({ v: true }).extend({ runner_id: z.string() });
export type OnlineRunner = z.infer<typeof OnlineRunner>;

export const RUN_ROUTES = {
  sendCommand: route({
    method: "post",
    path: "/api/v1/runs/:run/commands",
    summary: "A person's command to a run: steer, pause, resume or cancel; answers the stored `run.command`",
    tag: "Runs",
    who: { kinds: ["person"], may: "write", refusal: `commands come from people: ${FROM_PEOPLE}` },
    body: { schema: CommandBody, maxBytes: 128 * 1024, what: "bad command" },
    answers: storedOrReplay(StoredEvent, "stored"),
    errors: [
      "run_not_found",
      ...ingestRefusals,
      "command_pending",
      "command_not_supported",
      "run_not_taken",
      "idempotency_key_reused",
    ],
  }),
  runCommands: route({
    method: "get",
    path: "/api/v1/runs/:run/commands",
    summary: "The run's state and its commands' receipts, oldest first",
    tag: "Runs",
    who: {},
    scope: "run",
    answers: { 200: { description: "the receipts", schema: RunCommandsAnswer } },
    errors: [],
  }),
  forceFinish: route({
    method: "post",
    path: "/api/v1/runs/:run/force-finish",
    summary: 'Finish a run whose harness is gone past the grace: `run.finished{failed, "harness lost"}`',
    tag: "Runs",
    who: { may: "write" },
    answers: storedOrReplay(StoredEvent, "the stored `run.finished`"),
    errors: ["run_not_found", ...ingestRefusals],
  }),
  pollCommands: route({
    method: "get",
    path: "/api/v1/commands",
    summary: "A harness without sockets polls its runs' commands after a seq (the poll is delivery and presence)",
    tag: "Runs",
    who: { kinds: ["harness", "runner"], refusal: "harnesses poll their commands here" },
    query: z.object({ after: count("after", 0), limit: count("limit", 100, 1000) }),
    answers: { 200: { description: "the commands, as stored `run.command` events", schema: CommandsPage } },
    errors: [],
  }),
  startRun: route({
    method: "post",
    path: "/api/v1/runs",
    summary: "Start a run for a runner: the prompt as a message and a `run.queued`",
    tag: "Runners",
    who: { kinds: ["person"], may: "write", refusal: `runs are started by people: ${FROM_PEOPLE}` },
    body: { schema: StartRunBody, maxBytes: 128 * 1024, what: "bad run request" },
    answers: storedOrReplay(RunStarted, "queued"),
    errors: ["space_not_found", "idempotency_key_reused", "budget_exhausted", "rate_limited", "overloaded"],
  }),
  runners: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/runners",
    summary: "The runners connected now (to this node): their repositories and agents, for the start form",
    tag: "Runners",
    who: {},
    scope: "workspace",
    answers: { 200: { description: "the runners", schema: z.object({ runners: z.array(OnlineRunner) }) } },
    errors: [],
  }),
  runnerEvents: route({
    method: "get",
    path: "/api/v1/runs/:run/runner-events",
    summary: "The run's runner events after a sequence, in order ([RN2])",
    tag: "Runners",
    who: {},
    scope: "run",
    query: z.object({ after: count("after", 0) }),
    answers: {
      200: {
        description: "at most 1000 of them",
        schema: z.object({
          run_id: z.string(),
          events: z.array(
            z.object({
              sequence: z.number().int(),
              kind: z.string(),
              message: z.string(),
              payload: z.unknown(),
              occurred_at: z.string(),
              event_id: z.string(),
            }),
          ),
        }),
      },
    },
    errors: [],
  }),
  putObject: route({
    method: "put",
    path: "/api/v1/runs/:run/objects",
    summary: "The run's runner stores an artifact; answers the reference events carry ([RN3])",
    tag: "Runners",
    who: { kinds: ["runner"], refusal: "objects are stored by the run's runner" },
    scope: "run",
    // The bound is the server's CHIPS_MAX_OBJECT_BYTES (64 MiB unless set).
    body: { schema: z.string().describe("the bytes"), media: "application/octet-stream", maxBytes: 64 * 1024 * 1024 },
    answers: { 201: { description: "stored", schema: ObjectRef } },
    errors: [],
  }),
  objectUrl: route({
    method: "get",
    path: "/api/v1/runs/:run/objects/:sha",
    summary:
      "A signed, expiring URL to read one of the run's objects, made now ([RN3]); `?redirect=1` redirects to it, so a page's link opens the object without holding the URL",
    tag: "Runners",
    who: {},
    scope: "run",
    query: z.object({ redirect: z.string().optional() }),
    answers: {
      200: { description: "the URL", schema: z.object({ url: z.string(), expires_at: z.string() }) },
      302: { description: "with `redirect=1`: to the signed URL (Location)" },
    },
    errors: ["not_found"],
  }),
  objectBytes: route({
    method: "get",
    path: "/objects/:ws/:run/:sha",
    summary: "An object by its signed URL (the signature is the credential), served inert",
    tag: "Runners",
    who: { open: true },
    query: z.object({ exp: z.string().optional(), sig: z.string().optional() }),
    answers: {
      200: { description: "the bytes", schema: z.string().describe("the bytes"), media: "application/octet-stream" },
    },
    errors: ["forbidden", "not_found"],
  }),
} as const;
