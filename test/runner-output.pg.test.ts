import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { utf8Length } from "../lib/core/protocol";
import { INLINE_MAX } from "../lib/agents/runner/outbox";
import { request } from "./support/api";
import { say, shell, toolOutputs } from "./support/model-server";
import { runnerWorld, type World } from "./support/runner-world";

/**
 * [RN3] Output too long to keep inline in an event — a required check's, an agent command's —
 * goes whole to the object store, and its event carries `{key, sha256, bytes}`; [RN4] it is
 * masked on the way. A real runner with the real Codex CLI against a scripted model.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const SECRET = "hunter2-but-longer-7f3a";
const MASKED = "[masked:SECRET]";

/**
 * A check printing ~200 KB that no re-lining would keep: CRLF line ends, a byte that is not
 * UTF-8, the secret, and no newline at the end.
 */
const CHECK = `awk 'BEGIN { for (i = 1; i <= 17100; i++) printf "line %05d\\r\\n", i }'; printf '\\377 %s\\n' "$SECRET"; printf 'the end'`;
/** What the agent runs: ~229 KB of lines, then the secret. */
const AGENT_COMMAND = `seq 1 40000; echo "secret: $SECRET"`;

const sh = (cmd: string) => execFileSync("/bin/sh", ["-c", cmd], { env: { ...process.env, SECRET } });
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
/** The bytes with the secret as the runner masks it. */
const masked = (b: Buffer) => Buffer.from(b.toString("latin1").split(SECRET).join(MASKED), "latin1");

describe("[RN3] long output goes whole to the object store", { timeout: 180_000 }, () => {
  test("[RN3] [RN4] a required check printing 200 KB and an agent command printing 229 KB: the events hold references, and the object URL gives back every byte, masked", async () => {
    world = await runnerWorld({
      runner: { secrets: { SECRET } },
      script: ({ input }) => ({ items: [toolOutputs(input) === 0 ? shell(AGENT_COMMAND) : say("done")] }),
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Print a lot", secrets: ["SECRET"], required_commands: [CHECK] });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");

    // The check: its change-set entry names the object; the bytes come back exactly, through a signed URL.
    const expected = masked(sh(CHECK));
    expect(expected.length).toBeGreaterThan(200 * 1024);
    const events = await w.runnerEvents(runId);
    const changeSet = events.find((e: any) => e.kind === "change-set");
    const ref = changeSet.payload.checks[0].output;
    expect(ref).toEqual({ key: expect.stringContaining(ref.sha256), sha256: sha256(expected), bytes: expected.length });
    const got = await w.object(runId, ref.sha256);
    expect(got.equals(expected)).toBe(true);
    // The room's "open" link: a redirect to a signed URL made at the click, read without any credential.
    const open = await request(`${w.server.url}/api/v1/runs/${runId}/objects/${ref.sha256}?redirect=1`, {
      token: w.ws.person_token,
      redirect: "manual",
    });
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toMatch(/^\/objects\/.+\?exp=\d+&sig=[0-9a-f]{64}$/);
    const followed = await fetch(`${w.server.url}${open.headers.get("location")}`);
    expect(Buffer.from(await followed.arrayBuffer()).equals(expected)).toBe(true);

    // The agent's command: the log line keeps the first part inline and the whole behind output_ref.
    const log = events.find((e: any) => e.kind === "log" && e.payload?.command === AGENT_COMMAND);
    expect(log, JSON.stringify(events.map((e: any) => e.message))).toBeDefined();
    expect(log.payload.truncated).toBe(true);
    expect(utf8Length(log.payload.output)).toBeLessThanOrEqual(INLINE_MAX);
    const outRef = log.payload.output_ref;
    expect(outRef).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) });
    const whole = await w.object(runId, outRef.sha256);
    expect(whole.length).toBe(outRef.bytes);
    expect(sha256(whole)).toBe(outRef.sha256);
    // Every line the command printed (a login shell may print a line of its own first), masked.
    expect(whole.toString().endsWith(masked(sh(AGENT_COMMAND)).toString())).toBe(true);
    expect(whole.toString()).toContain(`secret: ${MASKED}`);
    expect(whole.toString("latin1")).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });
});
