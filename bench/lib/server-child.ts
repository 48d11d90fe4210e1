import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ProbeReport } from "./probe";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface ServerChild {
  url: string;
  adminToken: string;
  /** Begin the measured window in the server (CPU, event loop, optional CPU profile). */
  startWindow(profileFile?: string): Promise<void>;
  endWindow(): Promise<ProbeReport>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `server.ts` in its own process, so the server and the load generator do not share one
 * event loop: API only, no banner, no rate limit, on a free loopback port.
 */
export async function spawnServer(opts: {
  dataDir: string;
  databaseUrl?: string;
  extraEnv?: Record<string, string>;
}): Promise<ServerChild> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CHIPS_WEB: "0",
    CHIPS_BANNER: "0",
    CHIPS_RATE_LIMIT: "0",
    PORT: "0",
    HOST: "127.0.0.1",
    CHIPS_DATA_DIR: opts.dataDir,
    NODE_ENV: "production",
    ...opts.extraEnv,
  };
  delete env.DATABASE_URL;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const probe = pathToFileURL(path.join(ROOT, "bench", "lib", "probe.ts")).href;
  const proc = spawn(process.execPath, ["--import", "tsx", "--import", probe, path.join(ROOT, "server.ts")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 200_000) out = out.slice(-100_000); // bounded: only the tail matters
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  let how = "";
  const exited = new Promise<number | null>((r) =>
    proc.once("exit", (code, signal) => {
      how = signal ? `killed by ${signal}` : `exit code ${code}`;
      r(code);
    }),
  );

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`server did not start within 60 s:\n${out}`));
    }, 60_000);
    const onData = () => {
      const m = /Chips is listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited (${how}) before serving:\n${out}`));
    });
  });
  const adminToken = fs.readFileSync(path.join(opts.dataDir, "admin-token"), "utf8").trim();

  return {
    url,
    adminToken,
    startWindow: (profileFile) => ask(proc, { op: "start", profileFile }, "started").then(() => undefined),
    endWindow: () => ask(proc, { op: "stop" }, "report").then((m) => m.report as ProbeReport),
    output: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

function ask(proc: ChildProcess, msg: object, reply: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.off("message", on);
      reject(new Error(`server probe did not answer "${reply}" within 30 s`));
    }, 30_000);
    const on = (m: any) => {
      if (m?.op !== reply) return;
      clearTimeout(timer);
      proc.off("message", on);
      resolve(m);
    };
    proc.on("message", on);
    proc.send(msg);
  });
}
