import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { loadConfig, type ChipsConfig } from "../../lib/server/env";
import { startChips, type RunningChips } from "../../lib/server/start";

const ROOT = path.resolve(import.meta.dirname, "../..");

export const dbKind = () => inject("dbKind");

/**
 * One of several Chips nodes in this process on `db`'s PostgreSQL, as behind a balancer: no
 * pages, no rate limit, its data directory `dir` under the database's.
 */
export function nodeOn(
  db: { dataDir: string; databaseUrl?: string },
  dir: string,
  overrides: Partial<ChipsConfig> = {},
) {
  fs.mkdirSync(`${db.dataDir}/${dir}`, { recursive: true });
  return startChips(
    loadConfig({} as NodeJS.ProcessEnv, {
      port: 0,
      dataDir: `${db.dataDir}/${dir}`,
      databaseUrl: db.databaseUrl,
      web: false,
      banner: false,
      pgPoolSize: 5,
      rateLimit: 0,
      ...overrides,
    }),
  );
}

/** A fresh database for one server: a copy of the PGlite template, or a new Postgres database. */
export async function freshDatabase(): Promise<{ dataDir: string; databaseUrl?: string; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-test-"));
  if (dbKind() === "postgres") {
    const { default: postgres } = await import("postgres");
    const name = `chips_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const admin = postgres(inject("pgUrl"), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name} template ${inject("pgTemplate")}`);
    await admin.end();
    const u = new URL(inject("pgUrl"));
    u.pathname = `/${name}`;
    return {
      dataDir,
      databaseUrl: u.toString(),
      async drop() {
        const a = postgres(inject("pgUrl"), { max: 1, onnotice: () => {} });
        await a.unsafe(`drop database if exists ${name} with (force)`);
        await a.end();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  fs.cpSync(inject("pgliteTemplate"), dataDir, { recursive: true });
  return { dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

export interface TestServer {
  url: string;
  chips: RunningChips;
  adminToken: string;
  close(): Promise<void>;
}

/** The real server in this process, API only, on its own fresh database and a free port. */
export async function startTestServer(overrides: Partial<ChipsConfig> = {}): Promise<TestServer> {
  const fresh = await freshDatabase();
  const config = loadConfig({} as NodeJS.ProcessEnv, {
    port: 0,
    dataDir: fresh.dataDir,
    databaseUrl: fresh.databaseUrl,
    web: false,
    banner: false,
    pgPoolSize: 5,
    ...overrides,
  });
  const chips = await startChips(config);
  return {
    url: chips.url,
    chips,
    adminToken: fs.readFileSync(chips.boot.adminTokenFile, "utf8").trim(),
    async close() {
      await chips.close();
      await fresh.drop();
    },
  };
}

/** A port free on 127.0.0.1 now: a server restarted on it is reachable where clients had it. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/** `server.ts` as its own process (for kill -9 and lock tests); resolves once it serves. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "server.ts")], {
    cwd: ROOT,
    env: { ...process.env, CHIPS_WEB: "0", CHIPS_BANNER: "0", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /Chips is listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`server exited (${code}) before serving:\n${out}`)));
  });
  return { url, proc, output: () => out, exited };
}
