/**
 * The two servers the scale bench compares: Chips (server.ts, on a fresh database of the
 * run's PostgreSQL or its own PGlite) and the bare relay (bench/scale/relay.ts), each with the
 * memory and loop hooks, and the relay's stand-in workspaces: the same shape with no credentials.
 */
import path from "node:path";
import type { PgCluster } from "../lib/pg";
import { rmrf, spawnResumed, tmpDir } from "../lib/proc";
import type { Tenant } from "./run";

export async function server(
  kind: "chips" | "relay",
  pg: PgCluster | null,
  tag: string,
  idleS: number,
  profileDir?: string,
) {
  const dir = tmpDir("chips-scale-mem-");
  const memFile = path.join(dir, "mem.json");
  const loopFile = path.join(dir, "loop.jsonl");
  const env: Record<string, string> = {
    CHIPS_BENCH_MEM_FILE: memFile,
    CHIPS_BENCH_LOOP_FILE: loopFile,
    CHIPS_WORKSPACE_IDLE: String(idleS),
    CHIPS_LOG_LEVEL: "warn",
  };
  if (kind === "chips" && pg) env.DATABASE_URL = await pg.createDb(`scale_${tag}`);
  const srv = await spawnResumed({
    script: kind === "chips" ? "server.ts" : "bench/scale/relay.ts",
    env,
    nodeArgs: ["--expose-gc"],
    hooks: [
      path.join(import.meta.dirname, "../lib/mem-hook.ts"),
      path.join(import.meta.dirname, "../lib/loop-hook.ts"),
    ],
    profileDir,
  });
  return {
    srv,
    memFile,
    loopFile,
    async stop() {
      await srv.stop();
      rmrf(srv.dataDir);
      rmrf(dir);
    },
  };
}

/** W workspaces of R rooms for the relay: ids only (it checks no token and stores nothing). */
export const relayTenants = (w: number, r: number): Tenant[] =>
  Array.from({ length: w }, (_, i) => ({
    ws: {
      workspace_id: `ws_${i}`,
      space_id: `ws_${i}_r0`,
      harness_id: `h_${i}`,
      token: "",
      person_token: "",
    } as never,
    rooms: Array.from({ length: r }, (_, k) => `ws_${i}_r${k}`),
  }));
