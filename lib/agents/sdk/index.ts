/**
 * The Chips harness SDK: what a harness (a coding agent, a script) uses to work in a
 * Chips room — post protocol events with safe retries, run a run, obey commands.
 * Node 20+; typed from `lib/core/protocol`; no server code.
 */
export { ChipsClient, type ChipsClientOptions } from "./client";
export { ChipsError, isChipsError, isRetryableStatus, type ChipsErrorInit } from "./errors";
export { Batch, chunk } from "./batch";
export { RunHandle, type StartRunOptions, type StatusUpdate, type StepState, type Outcome } from "./run";
export type { CommandControls, CommandHandler, CommandSubscription } from "./commands";
export type { AskOptions, AskOutcome, AskRequest } from "./asks";
export { SocketCommands, type SocketCommandOptions } from "./socket";
export { PollCommands, type PollOptions } from "./poll";
export { DEFAULT_RETRY, backoffMs, parseRetryAfter, type RetryPolicy } from "./retry";
export { prepareEvent, newIdempotencyKey } from "./prepare";
export type {
  Actor,
  Command,
  EventInput,
  Me,
  PlanStep,
  PreparedEvent,
  Receipt,
  Run,
  StoredEvent,
  Usage,
} from "./types";
