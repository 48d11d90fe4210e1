import fs from "node:fs";
import path from "node:path";
import { ChipsClient } from "@/lib/agents/sdk";
import type { Command } from "@/lib/agents/sdk/types";
import { readConnection, readToken } from "../home";
import { takeLock } from "../lock";
import { DurableStore, sendOutbox } from "../outbox";
import { adoptOrphans, notAfter, pending } from "../spool";
import { ControlFiles } from "./control";
import { ClaudeSession } from "./session";
import { emptySession, type QueueRecord, type SessionState } from "./session-state";
import { DEFAULT_ASK_SECONDS } from "./settings";
import type { StoredEvent } from "@/lib/agents/sdk/types";

export interface DrainerOptions {
  /** Exit after this long with nothing to do and no turn going (default 60 s). */
  idleMs?: number;
  /**
   * …and after this long without any hook call or command even while a turn seems to go on,
   * or without reaching Chips even while hooks keep calling ([CON2]; default the connection's
   * `stale_seconds`, else 30 min); unsent events stay on disk for the next drainer.
   */
  staleMs?: number;
  log?: (line: string) => void;
}

/**
 * The drainer of one Claude Code connection: started by the hook when not running, it
 * applies the queue (spool/) in order, session by session, sends each session's outbox to
 * Chips (retrying through outages: nothing is lost, nothing sent twice), and holds the
 * harness's /harness socket — its presence, and the way commands come in while a turn
 * goes on. It leaves when there is nothing left to do, or when no hook has called for
 * `staleMs`, or when Chips has not taken its events for `staleMs` (sent or not, the outbox
 * stays on disk; the next hook call starts a drainer). One runs per connection ([CON1]): a
 * second finds the lock taken and returns at once.
 */
export async function runDrainer(root: string, o: DrainerOptions = {}): Promise<"exited" | "already-running"> {
  const release = await takeLock(root);
  if (!release) return "already-running";
  const log = o.log ?? ((line: string) => console.log(`${new Date().toISOString()} ${line}`));
  const conn = readConnection(root);
  if (!conn) {
    release();
    throw new Error(`${root} holds no connection (chips connect claude writes it)`);
  }
  const pidFile = path.join(root, "drainer.pid");
  const me = String(process.pid);
  /** Say this process is the drainer: the hook writes the pid of each drainer it starts, one that found the lock taken too. */
  const claim = () => {
    let held = "";
    try {
      held = fs.readFileSync(pidFile, "utf8");
    } catch {
      // none yet
    }
    if (held !== me) fs.writeFileSync(pidFile, me, { mode: 0o600 });
  };
  claim();
  const staleMs = o.staleMs ?? (conn.stale_seconds ?? 30 * 60) * 1000;
  const spool = path.join(root, "spool");
  const actor = { kind: "harness" as const, id: conn.harness_id };
  const client = new ChipsClient({
    url: conn.url,
    token: readToken(root),
    workspaceId: conn.workspace_id,
    actor,
    retry: { attempts: 1 },
    requestTimeoutMs: 10_000,
  });
  const store = new DurableStore<SessionState>(path.join(root, "state"), { workspaceId: conn.workspace_id, actor });
  const session = (sid: string) => {
    const d = store.load(sid) ?? { state: emptySession(sid), outbox: [] };
    return new ClaudeSession(d, {
      spaceId: conn.space_id,
      harnessId: conn.harness_id,
      control: new ControlFiles(root, sid),
      prepare: (events) => store.prepare(events),
      log,
      askSeconds: conn.ask_seconds ?? DEFAULT_ASK_SECONDS,
    });
  };

  let wake: (() => void) | null = null;
  const poke = () => wake?.();
  let lastActivity = Date.now();

  const onCommand = (cmd: Command) => {
    try {
      for (const sid of store.keys()) {
        const s = session(sid);
        if (!s.owns(cmd)) continue;
        s.command(cmd);
        store.save(sid, s.d);
        lastActivity = Date.now();
        poke();
        return;
      }
    } catch (e) {
      log(`command ${cmd.command_id} could not be applied: ${(e as Error).message}`);
    }
  };
  const socket = client.onCommand((cmd) => onCommand(cmd), {
    onError: (e) => log(`commands: ${(e as Error)?.message ?? e}`),
  });
  // [CON3] The room's answers to the sessions' asks (and Chips' closes), pushed — again after a reconnect until reported.
  socket.socket.on("answer", (frame: StoredEvent) => {
    const askId = (frame as { ask_id?: unknown })?.ask_id;
    try {
      for (const sid of store.keys()) {
        const s = session(sid);
        if (typeof askId !== "string" || !s.asks.owns(askId)) continue;
        s.answer(frame);
        store.save(sid, s.d);
        lastActivity = Date.now();
        poke();
        return;
      }
    } catch (e) {
      log(`answer ${String(askId)} could not be applied: ${(e as Error).message}`);
    }
  });
  // Whether Chips takes events: a hook that finds `chips-down` steps aside at once instead of asking ([CON4]).
  const down = path.join(root, "chips-down");
  fs.rmSync(down, { force: true });

  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(spool, () => poke());
  } catch {
    // polled below
  }
  const hold = (conn.hold_seconds ?? 600) * 1000;
  /**
   * Apply the queue (spool/) in order into the sessions' outboxes. Each session touched is
   * loaded once and saved once, after the whole queue (a save per record rewrote the whole
   * state per hook call: quadratic under a flood); only then do the records leave the spool.
   * A crash before a save leaves the records queued, to be applied again from the state
   * saved before; after it, the state's `last` says they were applied ([CON1]: once each).
   */
  const applyQueue = () => {
    adoptOrphans(spool, hold + 60_000);
    const touched = new Map<string, ClaudeSession>();
    const applied: string[] = [];
    for (const name of pending(spool)) {
      const file = path.join(spool, name);
      let rec: QueueRecord;
      try {
        rec = JSON.parse(fs.readFileSync(file, "utf8")) as QueueRecord;
      } catch (e) {
        log(`unreadable queue record ${name} dropped: ${(e as Error).message}`);
        fs.rmSync(file, { force: true });
        continue;
      }
      const sid = typeof rec.session_id === "string" ? rec.session_id : "";
      if (!/^[0-9A-Za-z-]+$/.test(sid)) {
        fs.rmSync(file, { force: true });
        continue;
      }
      let s = touched.get(sid);
      if (!s) touched.set(sid, (s = session(sid)));
      if (!notAfter(name, s.state.last)) s.apply(name, rec);
      applied.push(file);
    }
    for (const [sid, s] of touched) store.save(sid, s.d);
    for (const file of applied) fs.rmSync(file, { force: true });
    if (applied.length) lastActivity = Date.now();
  };
  let backoff = 0;
  /** Since when Chips has not taken events that wait (null while it takes them, or none wait). */
  let unreachableSince: number | null = null;
  try {
    for (;;) {
      claim();
      applyQueue();
      let waiting: string | null = null;
      for (const sid of store.keys()) {
        const r = await sendOutbox(client, store, sid, log);
        if ("waiting" in r) waiting = r.waiting;
        const s = session(sid);
        const queued = new Set(s.d.outbox.map((e) => (e as { ask_id?: string }).ask_id).filter(Boolean));
        if (s.asks.sentAll((id) => queued.has(id))) store.save(sid, s.d);
      }
      if (waiting) fs.writeFileSync(down, waiting);
      else fs.rmSync(down, { force: true });
      if (waiting) {
        backoff = Math.min(5000, Math.max(250, backoff * 2));
        if (backoff >= 1000) log(`Chips is not taking events (${waiting}); trying again`);
        unreachableSince ??= Date.now();
      } else {
        backoff = 0;
        unreachableSince = null;
      }
      const busy = store.keys().some((sid) => session(sid).busy || (store.load(sid)?.outbox.length ?? 0) > 0);
      const quiet = Date.now() - lastActivity;
      // Stale, it leaves even while Chips does not answer: the outbox is on disk, and the
      // next hook call starts a drainer that sends it. Waiting on forever kept a process
      // per connection alive for as long as Chips stayed away — also while hooks kept calling,
      // which then left the spool never empty.
      const unreachable = unreachableSince !== null && Date.now() - unreachableSince > staleMs;
      if (unreachable) {
        fs.rmSync(pidFile, { force: true });
        // From here a hook starts a new drainer; what hooks that saw this one's pid queued is applied now.
        applyQueue();
        log(
          `leaving with events unsent (${waiting}): Chips not reached for ${Math.round(staleMs / 1000)} s; the next hook call sends them`,
        );
        break;
      }
      const stale = quiet > staleMs;
      if (pending(spool).length === 0 && ((!busy && quiet > (o.idleMs ?? 60_000)) || stale)) {
        // A hook that saw our pid has already written its input (it writes, then looks): so
        // with the pid gone, anything in the spool now is ours to finish before leaving.
        fs.rmSync(pidFile, { force: true });
        if (fs.readdirSync(spool).length === 0) {
          if (waiting) log(`leaving with events unsent (${waiting}); the next hook call sends them`);
          break;
        }
        claim();
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, backoff || 1000);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    watcher?.close();
    socket.close();
    try {
      if (fs.readFileSync(pidFile, "utf8") === me) fs.rmSync(pidFile);
    } catch {
      // gone already
    }
    release();
  }
  return "exited";
}
