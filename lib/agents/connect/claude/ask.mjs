// @ts-check
/**
 * Asking the room about a permission prompt ([CON3]–[CON5]): what Chips' Claude Code hook runs
 * for PermissionRequest (the terminal shows its dialog at the same time) and, under `claude -p`,
 * for a PreToolUse that Claude Code would refuse for want of a permission (would-ask.mjs).
 *
 *   node ask.mjs <root> <event> <input-file> <queue-id>
 *
 * It queues the call for the drainer (which asks the room: `run.asked`), then waits for one of:
 *
 *   - the room's answer (`sessions/<sid>/ask.<id>.answer`, written by the drainer): printed as
 *     Claude Code takes it — then `run.answer_applied`;
 *   - the terminal's own answer (interactive: the dialog is on screen meanwhile, and whoever
 *     answers first wins; seen as the call's result in the session transcript): `answered
 *     elsewhere`;
 *   - nothing from the room within `ask_seconds`, Chips unreachable (the drainer could not
 *     send the ask: `chips-down`, or no word within a few seconds), or `claude` gone: it steps
 *     aside — prints nothing, so Claude Code does what it always does (its prompt in the
 *     terminal, its rules under `-p`) — and says why in the queue.
 *
 * Never a hang: every wait is bounded and every failure exits 0 without output.
 */
import fs from "node:fs";
import path from "node:path";
import { queueNamer, readText } from "./queue-name.mjs";
import { wouldAsk } from "./would-ask.mjs";

const [root = "", event = "", inputFile = "", queueId = "0-0"] = process.argv.slice(2);
/** How long the drainer may take to say the ask reached Chips (it may have to start first). */
const CONFIRM_MS = 10_000;
/** How often the hook looks at what it cannot watch; `CHIPS_ASK_POLL_MS` sets it (tests). */
const POLL_MS = Number(process.env.CHIPS_ASK_POLL_MS) > 0 ? Number(process.env.CHIPS_ASK_POLL_MS) : 150;

const nextName = queueNamer(queueId);

/** @param {Record<string, unknown>} body */
function record(body) {
  const name = nextName();
  const tmp = path.join(root, "spool", `.ask-${name}`);
  fs.writeFileSync(tmp, JSON.stringify(body));
  fs.renameSync(tmp, path.join(root, "spool", `${name}.json`));
}

let published = false;
function publish() {
  if (published) return;
  published = true;
  try {
    fs.renameSync(inputFile, path.join(root, "spool", `${nextName()}.json`));
  } catch {
    // already gone
  }
}

/** The `claude` this hook runs for: the nearest ancestor that is not a shell (hook → sh → claude). */
function claudePid() {
  let pid = process.ppid;
  for (let i = 0; i < 4 && pid > 1; i++) {
    const comm = (readText(`/proc/${pid}/comm`) ?? "").trim();
    if (!/^(sh|dash|bash|zsh|ash|busybox)$/.test(comm)) return pid;
    const stat = readText(`/proc/${pid}/stat`) ?? "";
    pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) || 0;
  }
  return pid;
}

/** @param {number} pid */
const alive = (pid) => {
  if (!(pid > 1)) return true; // unknown: the deadline still ends the wait
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return /** @type {NodeJS.ErrnoException} */ (e).code === "EPERM";
  }
};

/** @param {unknown} v @returns {string} JSON with sorted keys: the same call compares equal however it was written. */
const canon = (v) =>
  v && typeof v === "object"
    ? Array.isArray(v)
      ? `[${v.map(canon).join(",")}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canon(/** @type {Record<string, unknown>} */ (v)[k])}`)
          .join(",")}}`
    : JSON.stringify(v);

/**
 * The session transcript, read from its tail on: the call's `tool_use` (PermissionRequest names
 * no tool_use_id) and then its `tool_result` — the terminal's own answer, if it came first.
 */
class Transcript {
  /** @param {string} file @param {string} tool @param {unknown} input */
  constructor(file, tool, input) {
    this.file = file;
    this.tool = tool;
    this.want = canon(input);
    /** @type {Set<string>} */
    this.open = new Set();
    this.rest = "";
    let size = 0;
    try {
      size = fs.statSync(file).size;
    } catch {
      // not there yet
    }
    this.offset = Math.max(0, size - 1024 * 1024);
    this.skipPartial = this.offset > 0;
  }

  /** @returns {{allowed: boolean} | null} the terminal's answer, once the call has its result */
  poll() {
    if (!this.file) return null;
    let fd;
    try {
      fd = fs.openSync(this.file, "r");
    } catch {
      return null;
    }
    try {
      const buf = Buffer.alloc(256 * 1024);
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.rest += buf.subarray(0, n).toString("utf8");
      }
    } finally {
      fs.closeSync(fd);
    }
    const lines = this.rest.split("\n");
    this.rest = lines.pop() ?? "";
    if (this.skipPartial) {
      lines.shift(); // the window began mid-line
      this.skipPartial = false;
    }
    for (const line of lines) {
      /** @type {any} */
      let j;
      try {
        j = JSON.parse(line);
      } catch {
        continue;
      }
      const content = Array.isArray(j?.message?.content) ? j.message.content : [];
      for (const c of content) {
        if (j.type === "assistant" && c?.type === "tool_use" && c.name === this.tool && canon(c.input) === this.want)
          this.open.add(c.id);
        if (j.type === "user" && c?.type === "tool_result" && this.open.has(c.tool_use_id)) {
          const text = typeof c.content === "string" ? c.content : JSON.stringify(c.content ?? "");
          return { allowed: !/doesn't want to proceed|was rejected/.test(text) };
        }
      }
    }
    return null;
  }
}

function main() {
  const input = JSON.parse(readText(inputFile) ?? "{}");
  const sid = typeof input.session_id === "string" && /^[0-9A-Za-z-]+$/.test(input.session_id) ? input.session_id : "";
  const conn = JSON.parse(readText(path.join(root, "connection.json")) ?? "{}");
  const seconds = Number(conn.ask_seconds) > 0 ? Number(conn.ask_seconds) : 120;
  const dialog = event === "PermissionRequest";
  const claude = claudePid();
  const tool = String(input.tool_name ?? "");
  // Chips known to be unreachable, no session, or nothing Claude Code would refuse: nothing to ask.
  if (!sid || fs.existsSync(path.join(root, "chips-down")) || (!dialog && !wouldAsk(input, claude))) return;
  const dir = path.join(root, "sessions", sid);
  const turn = (readText(path.join(dir, "turn")) ?? "").trim();
  const granted = JSON.parse(readText(path.join(dir, `grants.${turn}`)) ?? "[]");
  if (turn && Array.isArray(granted) && granted.includes(tool)) {
    // [CON3] "Allow for this run": this tool, for the rest of the turn, without asking again.
    process.stdout.write(
      JSON.stringify(
        dialog
          ? { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } }
          : {
              hookSpecificOutput: {
                hookEventName: "PreToolUse",
                permissionDecision: "allow",
                permissionDecisionReason: `${tool} was allowed for this run in the Chips room`,
              },
            },
      ),
    );
    return;
  }
  const key = queueId;
  publish(); // the call's own record first: its status comes before its ask
  record({
    session_id: sid,
    chips_ask: {
      key,
      mode: dialog ? "dialog" : "print",
      tool_name: tool,
      tool_input: input.tool_input ?? {},
      ...(typeof input.tool_use_id === "string" ? { tool_use_id: input.tool_use_id } : {}),
    },
  });
  const answerFile = path.join(dir, `ask.${key}.answer`);
  const sentFile = path.join(dir, `ask.${key}.sent`);
  const transcript = dialog ? new Transcript(String(input.transcript_path ?? ""), tool, input.tool_input ?? {}) : null;
  const start = Date.now();
  /** @param {string} result @param {string} [note] */
  const end = (result, note) => record({ session_id: sid, chips_ask_end: { key, result, ...(note ? { note } : {}) } });
  const terminal = () => {
    const t = transcript?.poll();
    return t ? `answered ${t.allowed ? "Allow" : "No"} at the terminal` : null;
  };
  const done = () => {
    for (const f of [answerFile, sentFile]) fs.rmSync(f, { force: true });
  };
  return new Promise((resolve) => {
    let over = false;
    /** @type {fs.FSWatcher | null} */
    let watcher = null;
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    /** @param {unknown} [v] */
    const stop = (v) => {
      over = true;
      watcher?.close();
      clearTimeout(timer);
      resolve(v);
    };
    const tick = () => {
      if (over) return;
      const answered = readText(answerFile);
      if (answered !== null) {
        const a = JSON.parse(answered);
        if (a.output) {
          const first = terminal();
          if (first) end("elsewhere", first);
          else {
            process.stdout.write(JSON.stringify(a.output));
            end("applied");
          }
        }
        return stop(); // a close: the drainer knows why
      }
      const sent = fs.existsSync(sentFile);
      const first = terminal();
      if (first) return stop(end("elsewhere", first));
      if (!sent && (Date.now() - start > CONFIRM_MS || fs.existsSync(path.join(root, "chips-down"))))
        return stop(end("unreachable"));
      if (Date.now() - start > seconds * 1000) return stop(end("expired"));
      if (!alive(claude)) return stop(end("gone"));
    };
    // [CON7] The answer wakes the hook as the drainer renames it into place: a person's click is
    // not left waiting for the next look. The looks go on for what has no file event of its own
    // (the terminal's answer in the transcript, the deadline, `claude` gone), and for the answer
    // too where the watch is not to be had.
    try {
      watcher = fs.watch(dir, (_event, name) => {
        if (name === path.basename(answerFile)) tick();
      });
      watcher.on("error", () => watcher?.close());
    } catch {
      watcher = null;
    }
    const look = () => {
      tick();
      if (!over) timer = setTimeout(look, POLL_MS);
    };
    look();
  }).finally(done);
}

try {
  await main();
} catch {
  // nothing may break the session
}
try {
  publish();
} catch {
  // the record stays as a temp file; the drainer adopts old ones
}
