import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ChipsClient } from "@/lib/agents/sdk";
import { newId } from "@/lib/core/protocol/ids";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import { Translator, type TranslatorState } from "@/lib/agents/runner/translate";
import type { Usage } from "@/lib/core/protocol";
import type { EventInput, PreparedEvent } from "@/lib/agents/sdk/types";
import type { Connection } from "../home";
import { DurableStore, sendOutbox } from "../outbox";
import { readRolloutLine } from "./rollout";

/** Why a mirrored Codex run obeys no other button (Codex offers no way in but its message queue). */
const WATCH_ONLY =
  "Codex takes only a message from outside a session it runs itself (codex queue): steer, not pause or cancel";
/** Why a `codex exec` session takes no steer: exec aborts a queued message as it exits (openai/codex#41060). */
const EXEC_ONLY = "watch-only: a codex exec session drops queued messages";

interface RolloutState {
  file: string;
  /** Bytes of the file read and applied. */
  offset: number;
  session: string | null;
  /** Who runs the session (`session_meta.source`): `exec`, or an interactive TUI; absent in older state. */
  source?: string | null;
  /** The session's working directory is this project's (or under it); null until session_meta is read. */
  mine: boolean | null;
  run: { id: string; translator: TranslatorState; usage: Usage | null } | null;
  /** A turn began; its run starts with the prompt. */
  turn: boolean;
}

export interface WatchOptions {
  conn: Connection;
  token: string;
  /** `$CODEX_HOME` (default ~/.codex). */
  codexHome: string;
  /** Where offsets and outboxes are kept. */
  stateDir: string;
  log(line: string): void;
  /** How often the rollout files are looked at, ms (default 300). */
  intervalMs?: number;
  /** The `codex` that queues a steer into a session (default `codex` on PATH). */
  codexBin?: string;
}

function rolloutFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const n of names) {
      const p = path.join(d, n.name);
      if (n.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (n.isFile() && /^rollout-.*\.jsonl$/.test(n.name)) out.push(p);
    }
  };
  walk(dir, 0);
  return out.sort();
}

/**
 * `chips connect codex`: mirrors each turn of the Codex sessions run in a project —
 * interactive ones, in a person's own terminal — into a room, by reading the rollout files
 * Codex writes for them (rollout.ts). The prompt is the person's message (`goal_from:
 * harness`), plans are dots, commands the typing indicator, the agent's words messages,
 * usage on the run. The one way in Codex gives is its message queue: a steer of an
 * interactive session's run is handed to `codex queue --thread` ([CDX1]) and runs as the
 * session's next turn; every other command is rejected. Offsets and outboxes are durable: a restart, or Chips being
 * down, loses and repeats nothing. Files there before the watcher first started are read
 * from their end (their past is not replayed).
 */
export class CodexWatcher {
  private readonly client: ChipsClient;
  private readonly store: DurableStore<RolloutState>;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly firstStart: boolean;
  private readonly socket: ReturnType<ChipsClient["onCommand"]>;

  constructor(private o: WatchOptions) {
    const actor = { kind: "harness" as const, id: o.conn.harness_id };
    this.client = new ChipsClient({
      url: o.conn.url,
      token: o.token,
      workspaceId: o.conn.workspace_id,
      actor,
      retry: { attempts: 1 },
      requestTimeoutMs: 10_000,
    });
    this.firstStart = !fs.existsSync(o.stateDir);
    this.store = new DurableStore<RolloutState>(o.stateDir, { workspaceId: o.conn.workspace_id, actor });
    this.socket = this.client.onCommand(
      (cmd, controls) => {
        const s = this.store
          .keys()
          .map((k) => this.store.load(k)?.state)
          .find((x) => x?.run?.id === cmd.run_id);
        if (!s) return;
        const answer =
          cmd.command !== "steer"
            ? controls.reject(WATCH_ONLY)
            : s.source === "exec" || !s.session
              ? controls.reject(EXEC_ONLY)
              : this.enqueue(s.session, cmd.text ?? "").then(
                  () => controls.apply(),
                  (e: Error) => controls.reject(`codex queue failed: ${clipUtf8(e.message, 1000)}`),
                );
        void answer.catch((e) => o.log(`could not answer ${cmd.command_id}: ${(e as Error).message}`));
      },
      { onError: (e) => o.log(`commands: ${(e as Error)?.message ?? e}`) },
    );
  }

  /** [CDX1] A message for a session's next turn: Codex runs it at once when idle, after the turn when busy. */
  private enqueue(thread: string, text: string): Promise<void> {
    return new Promise((resolve, reject) =>
      execFile(
        this.o.codexBin ?? "codex",
        ["queue", "--thread", thread, "--message", text],
        { env: { ...process.env, CODEX_HOME: this.o.codexHome }, timeout: 30_000 },
        (err, _out, stderr) => (err ? reject(new Error(stderr.trim() || err.message)) : resolve()),
      ),
    );
  }

  start(): void {
    const known = new Set(this.store.keys());
    // The first start skips what was already there; later starts resume from their offsets.
    for (const file of rolloutFiles(path.join(this.o.codexHome, "sessions"))) {
      const key = path.basename(file, ".jsonl");
      if (known.has(key)) continue;
      this.store.save(key, {
        state: {
          file,
          offset: this.firstStart ? fs.statSync(file).size : 0,
          session: null,
          mine: this.firstStart ? false : null,
          run: null,
          turn: false,
        },
        outbox: [],
      });
    }
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.tick(true);
    this.socket.close();
  }

  private async tick(last = false): Promise<void> {
    try {
      for (const file of rolloutFiles(path.join(this.o.codexHome, "sessions"))) this.read(file);
      for (const key of this.store.keys()) {
        const r = await sendOutbox(this.client, this.store, key, this.o.log);
        if ("waiting" in r) {
          this.o.log(`Chips is not taking events (${r.waiting}); trying again`);
          break;
        }
      }
    } catch (e) {
      this.o.log(`codex watch: ${(e as Error).message}`);
    }
    if (!last && !this.stopped) this.timer = setTimeout(() => void this.tick(), this.o.intervalMs ?? 300);
  }

  private read(file: string) {
    const key = path.basename(file, ".jsonl");
    const d = this.store.load(key) ?? {
      state: { file, offset: 0, session: null, mine: null, run: null, turn: false },
      outbox: [],
    };
    const size = fs.statSync(file).size;
    if (size <= d.state.offset) return;
    const fd = fs.openSync(file, "r");
    const buf = Buffer.alloc(size - d.state.offset);
    fs.readSync(fd, buf, 0, buf.length, d.state.offset);
    fs.closeSync(fd);
    const end = buf.lastIndexOf(0x0a); // complete lines only: Codex may be mid-write
    if (end < 0) return;
    const text = buf.subarray(0, end + 1).toString("utf8");
    for (const line of text.split("\n")) if (line.trim()) this.apply(d, line);
    d.state.offset += end + 1;
    this.store.save(key, d);
  }

  private apply(d: { state: RolloutState; outbox: PreparedEvent[] }, line: string) {
    const s = d.state;
    const queue = (events: EventInput[]) => d.outbox.push(...this.store.prepare(events));
    const runId = () => s.run!.id;
    let translator: Translator | null = null;
    const tr = () => {
      const sink = {
        post: (...events: EventInput[]) =>
          queue(
            events.map(
              (e) =>
                ({
                  run_id: runId(),
                  ...(e.type === "message.posted" ? { space_id: this.o.conn.space_id } : {}),
                  ...e,
                }) as EventInput,
            ),
          ),
        runnerEvent: () => undefined,
      };
      translator ??= new Translator(sink, { kind: "harness", id: this.o.conn.harness_id }, {}, s.run!.translator);
      return translator;
    };
    for (const sig of readRolloutLine(line)) {
      if (sig.kind === "session") {
        s.session = sig.id;
        s.source = sig.source || null;
        const rel = path.relative(this.o.conn.project, sig.cwd);
        s.mine = !!sig.cwd && !rel.startsWith("..") && !path.isAbsolute(rel);
        continue;
      }
      if (!s.mine) continue;
      switch (sig.kind) {
        case "turn_started":
          s.turn = true;
          break;
        case "prompt":
          if (!s.turn || s.run) break; // a prompt outside a turn, or a second one in it
          s.run = {
            id: newId("run"),
            translator: { sessionId: s.session, usage: null, lastMessage: null, steps: [], progress: 0 },
            usage: null,
          };
          queue([
            {
              type: "run.started",
              run_id: s.run.id,
              space_id: this.o.conn.space_id,
              goal: clipUtf8(sig.text.trim() || "(an empty prompt)", LIMITS.goal),
              goal_from: "harness",
              // [RUN2] [CDX1] an interactive session takes a steer through Codex's queue; exec drops it
              commands: s.source && s.source !== "exec" ? ["steer"] : [],
              ...(s.session ? { session_ref: s.session } : {}),
            },
          ]);
          break;
        case "agent":
          if (s.run) tr().handle(sig.event);
          break;
        case "usage":
          if (s.run) s.run.usage = sig.usage;
          break;
        case "turn_ended":
          if (s.run) {
            queue([
              {
                type: "run.finished",
                run_id: s.run.id,
                outcome: sig.outcome,
                ...(sig.why ? { summary: clipUtf8(sig.why, LIMITS.summary) } : {}),
                ...(s.run.usage ? { usage: s.run.usage } : {}),
              },
            ]);
          }
          s.run = null;
          s.turn = false;
          break;
      }
      if (s.run && translator) s.run.translator = (translator as Translator).state();
    }
  }
}
