/**
 * The runner contract (docs/PROTOCOL.md §5): what Chips sends a runner, what a runner
 * advertises, and the payloads of its `runner.event`s. Imported by the server, the runner
 * and the browser alike; zod schemas are the parse at each trust boundary.
 */
import { z } from "zod";
import { idOf, Instructions, ModelName, ProviderId, text } from "@/lib/core/protocol/fields";
import { LIMITS } from "@/lib/core/protocol/limits";

/**
 * Permission profiles ([RN1]). `workspace-write`: writes inside the worktree only, no network.
 * `ask` ([RN6]): the same sandbox, but the agent's commands and edits wait for a person in the
 * room — an answer decides the call, never the sandbox.
 */
export const PermissionProfile = z.enum(["read-only", "workspace-write", "ask"]);
export type PermissionProfile = z.infer<typeof PermissionProfile>;

/**
 * [RN6] How long a run of the `ask` profile waits for a person's answer before the call is
 * denied, seconds (a runner may set another: `chips runner --ask-seconds`).
 */
export const ASK_PROFILE_SECONDS = 300;

/** Agents a runner can drive (one adapter each). */
export const AgentName = z.enum(["codex", "claude"]);
export type AgentName = z.infer<typeof AgentName>;

/**
 * What each profile means per agent, as the start form and the README say it. Every claim
 * here has a test: test/runner-codex.pg.test.ts (Codex read-only), test/runner-sandbox.pg.test.ts
 * (Claude: writes outside the worktree, a second local port, read-only, no bubblewrap).
 */
export const PROFILE_DESCRIPTIONS: Record<AgentName, Record<PermissionProfile, string>> = {
  codex: {
    "workspace-write": "Codex's own sandbox: writes inside the run's worktree only (not /tmp), no network.",
    "read-only": "Codex's own sandbox: reads the repository, writes nothing.",
    ask: "Codex's own workspace-write sandbox, and every command waits for a person in the room to allow it (denied when nobody answers in time).",
  },
  claude: {
    "workspace-write":
      "A bubblewrap sandbox the runner builds: writes only in the run's worktree and a private /tmp; the rest of the machine is read-only (still readable); no network except the model endpoint.",
    "read-only":
      "A bubblewrap sandbox the runner builds: the worktree and the rest of the machine are read-only (still readable), only a private /tmp is writable; no network except the model endpoint.",
    ask: "The workspace-write sandbox; reading and searching run at once, each command or edit waits for a person in the room to allow it (denied when nobody answers in time).",
  },
};

const name = z.string().min(1).max(500);
const command = z.string().min(1).max(4000);
/** The agents that take a provider from a start request ([RN5]); the others refuse one. */
export const TAKES_PROVIDER: Record<AgentName, boolean> = { codex: true, claude: false };

/** [RN5] Why a start (or a task's defaults) may not name a provider for this agent; null when it may. */
export const providerRefused = (agent: AgentName): string | null =>
  TAKES_PROVIDER[agent]
    ? null
    : `the ${agent} agent takes no provider: its runner's configuration picks the endpoint; leave provider out`;

/** A secret is named in a start request; its value lives with the runner ([RN4]). */
const SecretName = z.string().regex(/^[A-Z_][A-Z0-9_]{0,99}$/, "an environment variable name (A-Z, 0-9, _)");

/**
 * `POST /api/v1/runs`: a person starts a run in a room. What it asks becomes the `request` of
 * a `run.queued`, so each field has that event's limit in UTF-8 bytes (`RunRequest`): refused
 * here rather than stored over its own schema.
 */
export const StartRunBody = z.object({
  space_id: idOf("space"),
  prompt: text(LIMITS.prompt),
  repository: text(LIMITS.name),
  base_branch: text(LIMITS.name).default("main"),
  agent: AgentName.default("codex"),
  profile: PermissionProfile.default("workspace-write"),
  required_commands: z.array(text(LIMITS.note)).max(20).default([]),
  secrets: z.array(SecretName.max(LIMITS.phase)).max(20).default([]),
  model: ModelName.optional(),
  /** [RN5] Codex only: a provider the runner has configured (else the runner's default). */
  provider: ProviderId.optional(),
  /** [RN5] given to the agent as its system prompt / developer instructions. */
  instructions: Instructions.optional(),
  idempotency_key: z.string().min(1).max(LIMITS.idempotencyKey),
});
export type StartRunBody = z.infer<typeof StartRunBody>;

/** A lease signed by Chips (Ed25519), bound to one run and one runner, expiring. */
export const Lease = z.object({
  /** base64url of the JSON of {@link LeaseClaims}. */
  claims: z.string().min(1).max(4000),
  /** base64url Ed25519 signature over the UTF-8 bytes of `claims` (the base64url text). */
  signature: z.string().min(1).max(200),
});
export type Lease = z.infer<typeof Lease>;

export const LeaseClaims = z.object({
  run_id: idOf("run"),
  runner_id: idOf("runner"),
  /** sha256 hex of the canonical JSON of the start request without its lease. */
  request_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  issued_at: z.string(),
  expires_at: z.string(),
});
export type LeaseClaims = z.infer<typeof LeaseClaims>;

/** `runner.start` (Chips → runner on `/harness`): the start request of docs/PROTOCOL.md §5, with §6's defaults where a room has no state. */
export const StartRequest = z.object({
  v: z.literal(1),
  workspace_id: idOf("workspace"),
  space_id: idOf("space"),
  run_id: idOf("run"),
  task_id: idOf("task"),
  repository: name,
  base_branch: name,
  worktree_name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  room: z.object({
    revision: z.number().int().min(0),
    intent: z.string().max(65_536),
    outcome: z.string().max(65_536),
  }),
  decisions: z.array(z.object({ decision_id: z.string(), title: z.string(), text: z.string() })).max(200),
  write_scope: z.array(z.string().max(500)).max(100),
  prerequisites: z.array(idOf("task")).max(100),
  prompt: z.object({ text: z.string().min(1).max(16_000), version: z.number().int().min(1) }),
  agent: AgentName,
  provider: ProviderId.nullable(),
  model: ModelName.nullable(),
  instructions: Instructions,
  profile: z.string().max(100),
  required_commands: z.array(command).max(20),
  secrets: z.array(SecretName).max(20),
  lease: Lease,
});
export type StartRequest = z.infer<typeof StartRequest>;

/** What a runner advertises when it dials in (`runner.hello`, acked with the lease key). */
export const RunnerHello = z.object({
  v: z.literal(1),
  name: z.string().min(1).max(200),
  adapters: z
    .array(
      z.object({
        agent: AgentName,
        profiles: z.array(PermissionProfile).max(10),
        version: z.string().max(100),
        /** [RN5] the models and providers a start may pick (the start form offers these); older runners send none. */
        models: z.array(ModelName).max(50).default([]),
        providers: z.array(ProviderId).max(50).default([]),
      }),
    )
    .max(10),
  repositories: z.array(name).max(500),
  capacity: z.number().int().min(1).max(100),
});
export type RunnerHello = z.infer<typeof RunnerHello>;
export type RunnerHelloAck = { ok: true; runner_id: string; lease_public_key: string } | { ok: false; error: string };

/** `lease.renew {run_id}` → `{ok, lease}` or `{ok: false, error}`. */
export type LeaseRenewAck = { ok: true; lease: Lease } | { ok: false; error: string };

/** An object in the store ([RN3]): events carry this, never the bytes or a URL. */
export const ObjectRef = z.object({
  key: z.string().min(1).max(300),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().min(0),
});
export type ObjectRef = z.infer<typeof ObjectRef>;

/** One file of a change-set (`git diff --numstat`; binary files have no line counts). */
export const ChangedFile = z.object({
  path: z.string().max(4096),
  status: z.enum(["added", "modified", "deleted", "renamed"]),
  additions: z.number().int().min(0).nullable(),
  deletions: z.number().int().min(0).nullable(),
  binary: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** A required command's evidence. */
export const CheckResult = z.object({
  command: z.string(),
  exit_code: z.number().int().nullable(),
  passed: z.boolean(),
  duration_ms: z.number().int().min(0),
  output: ObjectRef,
});
export type CheckResult = z.infer<typeof CheckResult>;

/** Payload of `runner.event{kind: "change-set"}`: what the run changed, published after the agent. */
export const ChangeSetPayload = z.object({
  base_sha: z.string(),
  head_sha: z.string(),
  branch: z.string(),
  files: z.array(ChangedFile).max(5000),
  additions: z.number().int().min(0),
  deletions: z.number().int().min(0),
  diff: ObjectRef,
  checks: z.array(CheckResult),
  cleanup: z.object({ policy: z.enum(["keep", "remove"]), worktree: z.string() }),
});
export type ChangeSetPayload = z.infer<typeof ChangeSetPayload>;

/** Payload of `runner.event{kind: "checkpoint"}`. */
export const CheckpointPayload = z.object({ sha: z.string(), reason: z.string() });
export type CheckpointPayload = z.infer<typeof CheckpointPayload>;
