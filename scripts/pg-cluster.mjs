#!/usr/bin/env node
// Throwaway PostgreSQL cluster for tests.
//
//   import { startCluster, findPgBin } from './pg-cluster.mjs';
//   const pg = await startCluster();   // { url, dir, port, stop() }
//   ...
//   await pg.stop();
//
// CLI: `node scripts/pg-cluster.mjs start` prints the URL on stdout and keeps
// the cluster running until SIGINT/SIGTERM.
//
// Only node built-ins. Never uses pg_ctlcluster: it runs initdb/pg_ctl from the
// PostgreSQL bin dir directly, as the `postgres` OS user when we are root
// (initdb refuses to run as root), otherwise as the current user.

import { spawn, spawnSync, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PG_OS_USER = "postgres";

/** Path of a PostgreSQL bin dir containing initdb + pg_ctl, or null. */
export function findPgBin() {
  const ok = (dir) => !!dir && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl"));
  const fromEnv = process.env.CHIPS_PG_BIN;
  if (fromEnv) return ok(fromEnv) ? fromEnv : null;
  const base = "/usr/lib/postgresql";
  let versions = [];
  try {
    versions = fs.readdirSync(base);
  } catch {
    return null;
  }
  versions.sort((a, b) => {
    const na = parseFloat(a);
    const nb = parseFloat(b);
    if (Number.isNaN(na) || Number.isNaN(nb)) return b.localeCompare(a);
    return nb - na; // newest first
  });
  for (const v of versions) {
    const dir = path.join(base, v, "bin");
    if (ok(dir)) return dir;
  }
  return null;
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** argv to run `bin args...`, via runuser when we are root. */
function asPgUser(bin, args) {
  if (isRoot()) return ["runuser", ["-u", PG_OS_USER, "--", bin, ...args]];
  return [bin, args];
}

/** Run a command, resolve with {code, out}; uses 'exit' (not 'close') because
 *  pg_ctl's backgrounded postmaster may keep inherited fds open. */
function run(cmd, args, { cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      // Give buffered output a moment to arrive, then stop listening.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code: code ?? (signal ? 128 : 1), out });
      }, 20);
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function readTail(file, max = 4000) {
  try {
    const s = fs.readFileSync(file, "utf8");
    return s.length > max ? s.slice(-max) : s;
  } catch {
    return "";
  }
}

// ---- cleanup of live clusters on exit / signals ---------------------------

const live = new Set();
let handlersInstalled = false;

function stopSync(c) {
  if (c.stopped) return;
  c.stopped = true;
  live.delete(c);
  const [cmd, args] = asPgUser(path.join(c.bin, "pg_ctl"), ["-D", c.dataDir, "-m", "immediate", "-w", "stop"]);
  try {
    spawnSync(cmd, args, { cwd: c.dir, stdio: "ignore", timeout: 30_000 });
  } catch {
    /* best effort */
  }
  try {
    fs.rmSync(c.dir, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("exit", () => {
    for (const c of [...live]) stopSync(c);
  });
  for (const [sig, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ]) {
    process.on(sig, () => {
      if (live.size) process.stderr.write(`[pg-cluster] ${sig}: stopping ${live.size} cluster(s)\n`);
      for (const c of [...live]) stopSync(c);
      process.exit(code);
    });
  }
}

// ---- public API ------------------------------------------------------------

/**
 * Start a throwaway cluster (trust auth, superuser `postgres`).
 * @param {{ port?: number, quiet?: boolean }} [opts]
 * @returns {Promise<{ url: string, dir: string, port: number, halt: () => Promise<void>, resume: () => Promise<void>, stop: () => Promise<void> }>}
 */
export async function startCluster({ port, quiet = false } = {}) {
  const t0 = Date.now();
  const bin = findPgBin();
  if (!bin) {
    throw new Error("PostgreSQL binaries not found (looked in $CHIPS_PG_BIN and /usr/lib/postgresql/*/bin)");
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-pg-"));
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "log");
  const c = { bin, dir, dataDir, stopped: false };
  installHandlers();
  live.add(c);

  try {
    if (isRoot()) {
      let uid;
      let gid;
      try {
        uid = Number(execFileSync("id", ["-u", PG_OS_USER], { encoding: "utf8" }).trim());
        gid = Number(execFileSync("id", ["-g", PG_OS_USER], { encoding: "utf8" }).trim());
      } catch {
        throw new Error(`running as root but OS user "${PG_OS_USER}" does not exist`);
      }
      fs.chownSync(dir, uid, gid);
      fs.chmodSync(dir, 0o700);
    }

    {
      const [cmd, args] = asPgUser(path.join(bin, "initdb"), [
        "-A",
        "trust",
        "-U",
        "postgres",
        "-D",
        dataDir,
        "--no-sync",
        // Independent of whatever LANG the caller has (and whether it is installed).
        "-E",
        "UTF8",
        "--locale=C",
      ]);
      const r = await run(cmd, args, { cwd: dir });
      if (r.code !== 0) throw new Error(`initdb failed (exit ${r.code}):\n${r.out}`);
    }

    const explicitPort = port != null;
    let lastErr = "";
    for (let attempt = 0; attempt < (explicitPort ? 1 : 5); attempt++) {
      const p = explicitPort ? port : await freePort();
      const opts = `-c listen_addresses=127.0.0.1 -p ${p} -k '${dir}' -c fsync=on -c max_connections=300`;
      const [cmd, args] = asPgUser(path.join(bin, "pg_ctl"), ["-D", dataDir, "-l", logFile, "-o", opts, "-w", "start"]);
      const r = await run(cmd, args, { cwd: dir });
      if (r.code === 0) {
        c.port = p;
        break;
      }
      lastErr = `pg_ctl start failed (exit ${r.code}) on port ${p}:\n${r.out}\n--- server log ---\n${readTail(logFile)}`;
    }
    if (!c.port) throw new Error(lastErr);
  } catch (err) {
    stopSync(c);
    throw err;
  }

  const url = `postgres://postgres@127.0.0.1:${c.port}/postgres`;
  if (!quiet) {
    process.stderr.write(
      `[pg-cluster] PostgreSQL (${bin}) started on 127.0.0.1:${c.port} in ${((Date.now() - t0) / 1000).toFixed(2)}s\n`,
    );
  }

  const pgCtl = async (args) => {
    const [cmd, argv] = asPgUser(path.join(bin, "pg_ctl"), ["-D", dataDir, ...args]);
    const r = await run(cmd, argv, { cwd: dir });
    if (r.code !== 0)
      throw new Error(`pg_ctl ${args.join(" ")} failed (exit ${r.code}):\n${r.out}\n${readTail(logFile)}`);
  };
  return {
    url,
    dir,
    port: c.port,
    /** Stop the server but keep its data (an outage): `resume()` starts it again on the same port. */
    async halt() {
      await pgCtl(["-m", "fast", "-w", "stop"]);
    },
    async resume() {
      const opts = `-c listen_addresses=127.0.0.1 -p ${c.port} -k '${dir}' -c fsync=on -c max_connections=300`;
      await pgCtl(["-l", logFile, "-o", opts, "-w", "start"]);
    },
    async stop() {
      if (c.stopped) return;
      c.stopped = true;
      live.delete(c);
      const [cmd, args] = asPgUser(path.join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
      try {
        const r = await run(cmd, args, { cwd: dir });
        if (r.code !== 0) process.stderr.write(`[pg-cluster] pg_ctl stop exited ${r.code}:\n${r.out}\n`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

// ---- CLI -------------------------------------------------------------------

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const cmd = process.argv[2];
  if (cmd !== "start") {
    process.stderr.write("usage: node scripts/pg-cluster.mjs start [--port N]\n");
    process.exit(2);
  }
  const i = process.argv.indexOf("--port");
  const port = i > 0 ? Number(process.argv[i + 1]) : undefined;
  try {
    const pg = await startCluster({ port });
    process.stdout.write(pg.url + "\n");
    process.stderr.write("[pg-cluster] running; Ctrl-C (SIGINT) or SIGTERM stops it\n");
    // Keep the event loop alive; the signal handlers stop the cluster and exit.
    setInterval(() => {}, 1 << 30);
  } catch (err) {
    process.stderr.write(`[pg-cluster] ${err.message}\n`);
    process.exit(1);
  }
}
