#!/usr/bin/env node
// One byte pipe and one command: `node sandbox-relay.mjs <listen> <connect> -- cmd args…`.
//
// Listens on <listen>, pipes every connection to a new connection to <connect>, runs the
// command (stdio inherited) once listening, and exits as the command did. Each address is
// `unix:<path>` or `tcp:<host>:<port>`. The runner's sandbox (lib/agents/runner/sandbox.ts) uses
// it twice to bring ONE endpoint — the agent's model — into a network namespace that has
// nothing else: outside, `unix:<job>/net/model.sock → tcp:<model host:port>` around
// bwrap; inside, `tcp:127.0.0.1:<port> → unix:<job>/net/model.sock` around the CLI.
//
// Plain JavaScript without dependencies, so it starts fast and runs inside the sandbox.
// SIGINT, SIGTERM and SIGHUP are ignored here: they reach the whole process group, and
// the command gets to handle them (an agent CLI saves its session on SIGINT); this relay
// keeps piping until the command has exited, then ends the same way (signal or code).
// Inside, it is the PID namespace's init: when it exits, the kernel ends the rest.
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { spawn } from "node:child_process";

const [listenAt, connectTo, dashes, cmd, ...args] = process.argv.slice(2);
if (!listenAt || !connectTo || dashes !== "--" || !cmd) {
  process.stderr.write(
    "usage: sandbox-relay.mjs unix:<path>|tcp:<host>:<port> unix:<path>|tcp:<host>:<port> -- cmd [args…]\n",
  );
  process.exit(2);
}

/** `unix:/p` → {path}; `tcp:h:p` → {host, port} (a bracketed IPv6 host keeps its colons). */
function address(spec) {
  if (spec.startsWith("unix:")) return { path: spec.slice(5) };
  const m = /^tcp:(\[[^\]]+\]|[^:]+):(\d+)$/.exec(spec);
  if (!m) throw new Error(`not an address: ${spec}`);
  return { host: m[1].replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

const from = address(listenAt);
const to = address(connectTo);
const sockets = new Set();

const server = net.createServer((inbound) => {
  const outbound = net.connect(to);
  sockets.add(inbound).add(outbound);
  const drop = () => {
    inbound.destroy();
    outbound.destroy();
    sockets.delete(inbound);
    sockets.delete(outbound);
  };
  inbound.on("error", drop).on("close", drop);
  outbound.on("error", drop).on("close", drop);
  inbound.pipe(outbound);
  outbound.pipe(inbound);
});

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const s of SIGNALS) process.on(s, () => {});

function run() {
  const child = spawn(cmd, args, { stdio: "inherit" });
  child.on("error", (e) => {
    process.stderr.write(`sandbox-relay: cannot start ${cmd}: ${e.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    server.close();
    for (const s of sockets) s.destroy();
    if (from.path) {
      fs.rmSync(from.path, { force: true });
      // A short socket dir made for a deep job dir (sandbox.ts) goes with its socket.
      if (path.basename(path.dirname(from.path)).startsWith("chips-net-"))
        fs.rmSync(path.dirname(from.path), { recursive: true, force: true });
    }
    // As a PID namespace's init (bwrap --as-pid-1) a signal to itself would be ignored: exit 128+n.
    if (signal && process.pid === 1) process.exit(128 + (os.constants.signals[signal] ?? 1));
    if (signal) {
      for (const s of SIGNALS) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + 1), 1000).unref();
      return;
    }
    process.exit(code ?? 1);
  });
}

server.on("error", (e) => {
  process.stderr.write(`sandbox-relay: cannot listen on ${listenAt}: ${e.message}\n`);
  process.exit(126);
});
if (from.path) fs.rmSync(from.path, { force: true });
server.listen(from.path ? { path: from.path } : { host: from.host, port: from.port }, run);
