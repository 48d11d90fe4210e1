import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The CHIPS_SECRET the e2e server and every second node share (a test value, not a real one). */
export const E2E_SECRET = "e2e-only-shared-secret-0123456789abcdef";

export interface OwnServer {
  baseURL: string;
  adminToken: string;
  stop(): Promise<void>;
  /** SIGKILL: gone at once, no shutdown — as a node that crashed or lost its machine. */
  kill(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/**
 * A second production server for a spec that needs other settings (a short presence grace),
 * on the run's database (a Postgres shared with the main server, or its own PGlite directory).
 */
export async function startOwnServer(env: Record<string, string>): Promise<OwnServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-e2e-own-"));
  const baseURL = `http://localhost:${port}`;
  const proc: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
      HOST: "127.0.0.1",
      CHIPS_PUBLIC_URL: baseURL,
      CHIPS_DATA_DIR: dataDir,
      DATABASE_URL: process.env.CHIPS_E2E_DATABASE_URL ?? "",
      CHIPS_RATE_LIMIT: "0",
      CHIPS_AUTH_ATTEMPTS: "0",
      CHIPS_BANNER: "0",
      CHIPS_SECRET: E2E_SECRET,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  await new Promise<void>((resolve, reject) => {
    const check = () => /Chips is listening on/.test(out) && resolve();
    proc.stdout!.on("data", check);
    void exited.then(() => reject(new Error(`the server exited before serving:\n${out}`)));
  });
  return {
    baseURL,
    adminToken: fs.readFileSync(path.join(dataDir, "admin-token"), "utf8").trim(),
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    async kill() {
      proc.kill("SIGKILL");
      await exited;
    },
  };
}
