#!/usr/bin/env node
// @ts-check
// The PreToolUse hook of a runner's Codex job in the `ask` profile ([RN9]):
//
//   node ask-hook.mjs <socket> <seconds>
//
// Codex runs it (outside its command sandbox) before each tool call with the call as JSON on
// stdin. It hands that to the job over the job's unix socket, one line each way, and prints
// what the job answers: `{}` lets the call run, a PreToolUse `deny` stops it with a reason the
// model reads. A Codex hook that times out FAILS OPEN (the call runs), so this one fails
// closed on its own: no job to ask, or no answer by <seconds> (the job's deadline, plus a
// margin) → deny. Plain JavaScript without dependencies: it starts on every tool call.
import fs from "node:fs";
import net from "node:net";

const [socket, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg) > 0 ? Number(secondsArg) : 300;

let done = false;
/** @param {string} text */
function finish(text) {
  if (done) return;
  done = true;
  process.stdout.write(text, () => process.exit(0));
}
/** @param {string} reason */
const deny = (reason) =>
  finish(
    JSON.stringify({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
    }),
  );

setTimeout(
  () => deny(`No answer from the Chips runner within ${seconds} s: the call was not run.`),
  seconds * 1000 + 15_000,
).unref();

let input = "";
try {
  input = fs.readFileSync(0, "utf8");
  JSON.parse(input);
} catch {
  deny("The Chips runner's hook could not read the call: not run.");
}
if (!done) {
  const conn = net.connect({ path: socket ?? "" });
  let reply = "";
  conn.setEncoding("utf8");
  conn.on("connect", () => conn.write(JSON.stringify(JSON.parse(input)) + "\n"));
  conn.on("data", (d) => {
    reply += d;
    const nl = reply.indexOf("\n");
    if (nl >= 0) {
      conn.destroy();
      finish(reply.slice(0, nl));
    }
  });
  conn.on("error", (e) => deny(`The Chips runner could not be asked (${e.message}): not run.`));
  conn.on("close", () => deny("The Chips runner hung up without an answer: not run."));
}
