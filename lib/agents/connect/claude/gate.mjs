// @ts-check
/**
 * The gate: what Chips' Claude Code hook runs when a command from the room waits for this
 * session (the drainer left `sessions/<sid>/gate`). Plain JavaScript with no dependency,
 * because it sits on the agent's path: Node's own start-up is the only cost.
 *
 *   node gate.mjs <root> <event> <input-file> <session-id> <queue-id>
 *
 * It reads the commands the drainer wrote for the session's current turn
 * (`sessions/<sid>/<kind>.<turn>.<command_id>`), answers Claude Code on stdout the way its
 * hooks allow, and writes what it handed over into the queue as a decision record, before
 * the hook's own record — so the drainer acks each command when the agent really got it:
 *
 *   - cancel:  PreToolUse → the call is denied (and every later one of the turn);
 *              PostToolUse / Stop → `continue: false` with the reason: the turn stops.
 *   - pause:   PreToolUse → the call is held until a resume (or `hold_seconds`, then denied).
 *   - steer:   PreToolUse → the call is denied with the guidance as the reason;
 *              PostToolUse → the guidance is added to what the model reads next;
 *              Stop → the stop is blocked with the guidance, so the agent goes on.
 *
 * Any failure: no output, exit 0 — the session never breaks because of Chips.
 */
import fs from "node:fs";
import path from "node:path";
import { queueNamer, readText } from "./queue-name.mjs";

const [root, event, inputFile, sid, queueId] = process.argv.slice(2);
const sessionDir = path.join(root ?? "", "sessions", sid ?? "");
const CMD = /^(pause|resume|steer|cancel|cancelled)\.([0-9]+-[0-9]+)\.(cmd_[0-9A-Za-z]+)$/;

const nextName = queueNamer(queueId);

/** @param {Record<string, unknown>} decision */
function record(decision) {
  const name = nextName();
  const tmp = path.join(root, "spool", `.gate-${name}`);
  fs.writeFileSync(tmp, JSON.stringify({ session_id: sid, chips_gate: decision }));
  fs.renameSync(tmp, path.join(root, "spool", `${name}.json`));
}

/** The hook's own input goes into the queue after the decisions it led to. */
function publish() {
  try {
    fs.renameSync(inputFile, path.join(root, "spool", `${nextName()}.json`));
  } catch {
    // already gone: nothing to keep
  }
}

/** @returns {{kind: string, cmd: string, file: string}[]} the current turn's commands, oldest first */
function commands() {
  const turn = (readText(path.join(sessionDir, "turn")) ?? "").trim();
  /** @type {{kind: string, cmd: string, file: string}[]} */
  const out = [];
  for (const name of fs.readdirSync(sessionDir).sort()) {
    const m = CMD.exec(name);
    if (m && m[2] === turn) out.push({ kind: m[1], cmd: m[3], file: path.join(sessionDir, name) });
  }
  return out.sort((a, b) => (a.cmd < b.cmd ? -1 : a.cmd > b.cmd ? 1 : 0)); // command ids are ULIDs: by time
}

/** @param {{file: string}} c */
const textOf = (c) => {
  try {
    return String(JSON.parse(readText(c.file) ?? "{}").text ?? "");
  } catch {
    return "";
  }
};

/** @param {{file: string}} c */
const gone = (c) => !fs.existsSync(c.file);

/** @param {unknown} o */
const answer = (o) => process.stdout.write(JSON.stringify(o));

const deny = (/** @type {string} */ reason) =>
  answer({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
  });

const CANCEL =
  "A person watching in the Chips room cancelled this turn. Stop now: call no more tools, and answer in one short line that you stopped.";
const STEER_HEAD = "A person watching in the Chips room sent guidance for this task:";

function holdSeconds() {
  try {
    const n = Number(JSON.parse(readText(path.join(root, "connection.json")) ?? "{}").hold_seconds);
    return Number.isFinite(n) && n > 0 ? n : 600;
  } catch {
    return 600;
  }
}

/** Hand out a cancel (first time: a decision record); it stays, so the turn's later calls are denied too. */
function cancel(/** @type {{kind: string, cmd: string, file: string}} */ c) {
  if (c.kind === "cancel") {
    record({ kind: "cancel", command_id: c.cmd, at: event });
    fs.renameSync(c.file, c.file.replace(/\/cancel\./, "/cancelled."));
  }
  if (event === "PreToolUse") deny(CANCEL);
  else answer({ continue: false, stopReason: "Cancelled from the Chips room" });
}

function steer(/** @type {{kind: string, cmd: string, file: string}[]} */ steers) {
  const text = `${STEER_HEAD}\n\n${steers.map(textOf).join("\n\n")}`;
  for (const s of steers) fs.unlinkSync(s.file);
  record({ kind: "steer", command_ids: steers.map((s) => s.cmd), at: event });
  if (event === "PreToolUse")
    deny(
      `This tool call was not run, so that you can take the guidance into account first; call it again if it still fits.\n\n${text}`,
    );
  else if (event === "PostToolUse")
    answer({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: text } });
  else answer({ decision: "block", reason: text });
}

async function hold(/** @type {{kind: string, cmd: string, file: string}} */ pause) {
  record({ kind: "held", command_id: pause.cmd });
  const until = Date.now() + holdSeconds() * 1000;
  // Polling a file is what a hook can do: the drainer removes the pause on resume or cancel.
  while (!gone(pause) && Date.now() < until) await new Promise((r) => setTimeout(r, 150));
  if (!gone(pause)) {
    record({ kind: "hold_expired", command_id: pause.cmd });
    deny(
      `The person watching in the Chips room paused this session; this call was held ${holdSeconds()} s and not run. Wait, then try again.`,
    );
    return false;
  }
  const resume = commands().find((c) => c.kind === "resume");
  if (resume) fs.unlinkSync(resume.file);
  record({ kind: "released", command_id: pause.cmd, ...(resume ? { resume_id: resume.cmd } : {}) });
  return true;
}

async function main() {
  let cmds = commands();
  const cancelled = () => cmds.find((c) => c.kind === "cancel" || c.kind === "cancelled");
  if (event === "PreToolUse") {
    const pause = cmds.find((c) => c.kind === "pause");
    if (pause && !cancelled()) {
      if (!(await hold(pause))) return;
      cmds = commands();
    }
  }
  const c = cancelled();
  if (c) return cancel(c);
  const steers = cmds.filter((x) => x.kind === "steer");
  if (steers.length) steer(steers);
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
