import { ChipsClient } from "@/lib/agents/sdk";
import type { StartRequest } from "@/lib/core/protocol/runner-contract";
import type { Adapter } from "./adapter";
import { RunAsks } from "./asks";
import type { Outbox } from "./outbox";

/** What an `ask` run's permissions are made from. */
interface JobAsksSetup {
  url: string;
  token: string;
  req: StartRequest;
  adapter: Adapter;
  actor: { kind: "harness"; id: string };
  out: Outbox;
  seconds: number;
  redact: (text: string) => string;
  log: (line: string) => void;
}

/** [RN6] The permissions of an `ask` run whose adapter can ask (null: the profile asks nobody). */
export function jobAsks(s: JobAsksSetup): RunAsks | null {
  const { req, adapter, out } = s;
  if (req.profile !== "ask" || !adapter.askPolicy) return null;
  return new RunAsks({
    // Its own client, giving up fast: with Chips unreachable a call is denied now, not after a minute of retries.
    client: new ChipsClient({
      url: s.url,
      token: s.token,
      workspaceId: req.workspace_id,
      actor: s.actor,
      retry: { attempts: 2, totalMs: 3000 },
      requestTimeoutMs: 10_000,
    }),
    runId: req.run_id,
    policy: adapter.askPolicy,
    seconds: s.seconds,
    source: adapter.askPolicy.via === "stdio" ? "claude-prompt-tool" : "codex",
    redact: s.redact,
    before: () => Promise.race([out.flush(), new Promise((r) => setTimeout(r, 5000))]),
    log: (line) => s.log(`[runner] ${req.run_id}: ${line}`),
  });
}
