import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOGUE, EVENT_TYPES, MAX_BYTES_KEYWORD, newId } from "../lib/core/protocol";
import { buildWorld, CASES } from "./bad-input/corpus";
import { server, setServer, type World } from "./bad-input/support";
import {
  ev,
  message,
  newHarness,
  newWorkspace,
  post,
  readEvents,
  request,
  runStarted,
  tapEventPosts,
  type SentEvents,
  type Workspace,
} from "./support/api";
import { SequenceWorld } from "./support/event-sequences";
import { Sequence, type Intent } from "./support/intents";
import { rawRunner } from "./support/raw-runner";
import { ackEdge, askEdges } from "./support/schema-edges";
import { startTestServer } from "./support/server";

/**
 * [SCH1] The JSON Schemas the server serves (`GET /schemas/<type>.json`) are what ingest
 * requires. Every example of the conformance suite — the bad-input corpus and the world it
 * runs in (./bad-input/), the legal sequences of ./support/event-sequences.ts, and the cases
 * below — is POSTed to the real server and validated by a standard validator (ajv, draft
 * 2020-12, with ajv-formats and the byte-limit keyword the schemas declare) against the
 * served schema of its type: accepted ⇔ valid, wherever the refusal is the schema's matter.
 */

/**
 * Refusals that are not the schema's matter, left out of the comparison: who may send
 * (401, 403), the transport (400, 413, 415), load (429, 503), and the store (404, 409) —
 * and these 422s, which only the store can tell ([HTTP2] step 10, the room's and commands'
 * rules): a schema judges one event alone.
 */
const NEEDS_THE_STORE = [
  /progress never decreases/,
  /unknown step_id: give a title/,
  /the run belongs to another space/,
  /no such command for this run/,
  /a new decision is recorded active/,
  /a decision cannot supersede itself/,
  /no such decision in this room/,
  /a call that was never started needs its tool and summary/,
  /unknown step_id: the step must be in the run's plan/,
];
/**
 * What JSON Schema cannot say, and docs/PROTOCOL.md says so ([SCH1]): a plan's step ids are
 * unique (uniqueness of one property across array items). Such examples are refused by the
 * server and valid to the schema; the test checks exactly that. So are an ask's option ids.
 */
const BEYOND_JSON_SCHEMA = [/duplicate step_id/, /duplicate option id/];
const SCHEMA_CODES = new Set(["validation_failed", "unsupported_version", "unknown_type"]);

/** A runner's run from queue to finish: with the drawn sequences, every type a client may send. */
const RUNNER_LIFE = [
  { t: "queue", run: 0, routed: true },
  { t: "take", run: 0, steps: 2, goalFrom: undefined },
  ...["started", "log", "checkpoint", "change-set", "failed", "completed"].map((kind) => ({
    t: "runner",
    run: 0,
    kind,
    payload: true,
    empty: kind === "log",
  })),
  { t: "finish", run: 0, outcome: "succeeded", usage: true, summary: true },
] as Intent[];

interface Example {
  label: string;
  sent: SentEvents;
}
const examples: Example[] = [];
let label = "setup";
let untap: () => void = () => {};
let world: World;
const more: Workspace[] = [];
const validators = new Map<string, ValidateFunction>();

/** Ajv with the formats and the byte-limit keyword the served schemas use, and every served schema. */
async function servedValidators() {
  const ajv = new Ajv2020({ allErrors: true });
  addFormats(ajv);
  ajv.addKeyword({
    keyword: MAX_BYTES_KEYWORD,
    type: "string",
    schemaType: "number",
    validate: (max: number, s: string) => Buffer.byteLength(s, "utf8") <= max,
  });
  const index = await request(`${server.url}/schemas`);
  expect(index.status).toBe(200);
  for (const path of index.body.schemas as string[]) {
    const r = await request(`${server.url}${path}`);
    expect(r.status, path).toBe(200);
    validators.set(path.replace("/schemas/", ""), ajv.compile(r.body));
  }
}

beforeAll(async () => {
  setServer(await startTestServer({ rateLimit: 0 }));
  untap = tapEventPosts((sent) => examples.push({ label, sent }));
  world = await buildWorld();
  for (const c of CASES) {
    label = `${c.rule} ${c.name}`;
    await c.send(world);
  }
  label = "a legal sequence (event-sequences.ts)";
  for (const intents of [RUNNER_LIFE, ...fc.sample(Sequence, { seed: 20260105, numRuns: 3 })]) {
    const ws = await newWorkspace(server);
    more.push(ws);
    const made = await newHarness(server, ws, "runner", "runner");
    const raw = await rawRunner(server.url, made.token);
    try {
      const sequence = new SequenceWorld(server, ws, { id: made.harness_id, token: made.token, raw });
      for (const intent of intents) await sequence.apply(intent);
      await sequence.settle();
    } finally {
      raw.close();
    }
  }
  await edges(world.A);
  const send = async (name: string, body: unknown) => {
    label = name;
    await post(server, world.A.token, body);
  };
  await askEdges(server, world.A, send);
  await ackEdge(server, world.A, send);
  untap();
  await servedValidators();
}, 180_000);
afterAll(() => {
  untap();
  return server?.close();
});

/** Examples at the edges of what the schemas now say: byte limits, actor ids, obeyed commands, key lengths. */
async function edges(A: Workspace) {
  const calls = newId("run");
  const cases: [string, unknown][] = [
    ["a run for tool calls", runStarted(A, calls)],
    ["tool.started", ev(A, "tool.started", { run_id: calls, call_id: "c1", tool: "Bash", summary: "npm test" })],
    ["tool.finished", ev(A, "tool.finished", { run_id: calls, call_id: "c1", outcome: "ok", exit_code: 0 })],
    [
      "a call's summary on two lines",
      ev(A, "tool.started", { run_id: calls, call_id: "c2", tool: "Bash", summary: "a\nb" }),
    ],
    ["a goal of 1,333 Japanese characters (3,999 bytes)", runStarted(A, newId("run"), { goal: "日".repeat(1333) })],
    ["a goal of 1,334 Japanese characters (4,002 bytes)", runStarted(A, newId("run"), { goal: "日".repeat(1334) })],
    [
      "a title of 500 bytes in 250 two-byte letters",
      runStarted(A, newId("run"), { plan: [{ step_id: "s", title: "é".repeat(250) }] }),
    ],
    [
      "a title of 502 bytes in 251 two-byte letters",
      runStarted(A, newId("run"), { plan: [{ step_id: "s", title: "é".repeat(251) }] }),
    ],
    ["commands pause without resume", runStarted(A, newId("run"), { commands: ["steer", "pause"] })],
    ["commands with steer twice", runStarted(A, newId("run"), { commands: ["steer", "steer"] })],
    ["commands pause and resume", runStarted(A, newId("run"), { commands: ["pause", "resume"] })],
    ["an agent actor with a harness id", message(A, "hi", { actor: { kind: "agent", id: A.harness_id } })],
    ["a key of 255 emoji (510 UTF-16 units)", message(A, "hi", { idempotency_key: "🔑".repeat(255) })],
    ["a key of 256 emoji", message(A, "hi", { idempotency_key: "🔑".repeat(256) })],
    ["a person's message, no actor", { token: A.person_token, body: message(A, "hi", { actor: undefined }) }],
    [
      "a person's room.updated, no actor",
      {
        token: A.person_token,
        body: ev(A, "room.updated", { space_id: A.space_id, revision: 1, intent: "Ship", actor: undefined }),
      },
    ],
  ];
  for (const [name, sent] of cases) {
    label = `edge: ${name}`;
    const asPerson = (sent as { token?: string }).token;
    await post(server, asPerson ?? A.token, asPerson ? (sent as { body: unknown }).body : sent);
  }
}

/** Who a request's credential is, as the server says (`GET /api/v1/me`); null when it is no one's. */
const whoCache = new Map<string, { kind: string; id: string } | null>();
async function who(headers: Headers) {
  const key = `${headers.get("authorization")}|${headers.get("cookie")}`;
  if (!whoCache.has(key)) {
    const me = await request(`${server.url}/api/v1/me`, {
      headers: Object.fromEntries([...headers].filter(([k]) => k === "authorization" || k === "cookie")),
    });
    whoCache.set(key, me.status === 200 ? me.body : null);
  }
  return whoCache.get(key)!;
}

/** The events a body holds (a batch's, or the body as one event); null when it is not JSON or not a batch of any. */
function eventsOf(body: string): unknown[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null; // the transport's matter (400)
  }
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && "events" in parsed) {
    const events = (parsed as { events: unknown }).events;
    return Array.isArray(events) && events.length ? events : null; // the batch wrapper is no event's schema
  }
  return [parsed];
}

/** An event as ingest reads it from a person: a person's actor is the server's to set ([ENV10]). */
function asRead(e: unknown, person: { id: string } | null): unknown {
  if (!person || !e || typeof e !== "object" || Array.isArray(e) || "actor" in e) return e;
  return { ...e, actor: { kind: "person", id: person.id } };
}

/** Valid against its type's served schema (the envelope's when the type is unknown) — and the envelope agrees. */
function check(e: unknown): { valid: boolean; errors: string } {
  const type = (e as { type?: unknown })?.type;
  const own = typeof type === "string" && EVENT_TYPES.includes(type as never) ? validators.get(`${type}.json`)! : null;
  const envelope = validators.get("envelope.json")!;
  const valid = own ? own(e) : envelope(e);
  const errors = JSON.stringify((own ?? envelope).errors ?? []).slice(0, 400);
  if (own)
    expect(envelope(e), `envelope.json and ${type}.json disagree on ${JSON.stringify(e).slice(0, 200)}`).toBe(valid);
  return { valid, errors };
}

type Verdict = "accepted" | "refused by the schema" | "beyond JSON Schema" | "not the schema's matter";
function verdictOf(a: SentEvents["answer"]): Verdict {
  if (a.status === 200 || a.status === 201) return "accepted";
  if (a.status !== 422 || !SCHEMA_CODES.has(a.body?.code)) return "not the schema's matter";
  const said = [a.body.detail, ...(a.body.errors ?? []).map((e: { message: string }) => e.message)].join("\n");
  if (NEEDS_THE_STORE.some((re) => re.test(said))) return "not the schema's matter";
  if (BEYOND_JSON_SCHEMA.some((re) => re.test(said))) return "beyond JSON Schema";
  return "refused by the schema";
}

describe("[SCH1] the served JSON Schemas are what ingest requires", () => {
  it("[SCH1] every example the server accepts is valid, and every one it refuses for its schema is invalid", async () => {
    const seen: Record<Verdict, number> = {
      accepted: 0,
      "refused by the schema": 0,
      "beyond JSON Schema": 0,
      "not the schema's matter": 0,
    };
    const disagree: string[] = [];
    const acceptedTypes = new Set<string>();
    for (const { label, sent } of examples) {
      const events = eventsOf(sent.body);
      const verdict = events ? verdictOf(sent.answer) : "not the schema's matter";
      seen[verdict]++;
      if (!events || verdict === "not the schema's matter") continue;
      const me = await who(sent.headers);
      const person = me?.kind === "person" ? me : null;
      const results = events.map((e) => check(asRead(e, person)));
      if (verdict === "accepted") for (const e of events) acceptedTypes.add((e as { type: string }).type);
      const allValid = results.every((r) => r.valid);
      const what = `${label} (${sent.answer.status} ${sent.answer.body?.code ?? ""})`;
      if (verdict === "accepted" && !allValid)
        disagree.push(`${what}: accepted, but the schema says ${results.find((r) => !r.valid)!.errors}`);
      if (verdict === "refused by the schema" && allValid)
        disagree.push(`${what}: refused (${sent.answer.text.slice(0, 300)}), but every event is valid to its schema`);
      if (verdict === "beyond JSON Schema" && !allValid)
        disagree.push(`${what}: listed as beyond JSON Schema, yet the schema refuses it: take it off the list`);
    }
    expect(disagree).toEqual([]);
    // The comparison is not empty: every type a client may send is accepted somewhere, the
    // corpus reaches the schema's refusals, and the one exception is met.
    expect([...acceptedTypes].sort()).toEqual(
      EVENT_TYPES.filter((t) => CATALOGUE[t].sentBy.some((k) => k !== "system")).sort(),
    );
    expect(seen["refused by the schema"]).toBeGreaterThan(60);
    expect(seen["beyond JSON Schema"]).toBeGreaterThanOrEqual(1);
  });

  it("[SCH1] every event the log serves, the server's own included, is valid against its served schema", async () => {
    const invalid: string[] = [];
    let n = 0;
    for (const ws of [world.A, world.B, ...more])
      for (const e of await readEvents(server, ws)) {
        n++;
        // The server's own events carry no idempotency key: a key is what a client sends to retry.
        const r = check(e.actor.kind === "system" && !e.idempotency_key ? { ...e, idempotency_key: "system" } : e);
        if (!r.valid) invalid.push(`${e.type} seq ${e.seq}: ${r.errors}`);
      }
    expect(invalid).toEqual([]);
    expect(n).toBeGreaterThan(50);
  });

  it("[SCH1] each type's schema requires the envelope fields ingest requires of it", async () => {
    const required = (type: string) => (validators.get(`${type}.json`)!.schema as { required: string[] }).required;
    expect(required("run.started")).toEqual(expect.arrayContaining(["actor", "run_id", "space_id", "idempotency_key"]));
    expect(required("run.status")).toEqual(expect.arrayContaining(["actor", "run_id", "idempotency_key"]));
    expect(required("run.status")).not.toContain("space_id"); // the server fills in the run's space
    expect(required("runner.event")).toEqual(expect.arrayContaining(["actor", "run_id"]));
    expect(required("runner.event")).not.toContain("idempotency_key"); // (run_id, sequence) is its key
    expect(required("message.posted")).toEqual(expect.arrayContaining(["actor", "space_id", "idempotency_key"]));
    expect(required("room.updated")).not.toContain("actor"); // people only: the server sets it
  });
});
