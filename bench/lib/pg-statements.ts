import fs from "node:fs";
import path from "node:path";
import type { PgAdmin } from "./pg-watch";

/**
 * Statement-level profile of one window on the throwaway cluster (only with `--profile`: it
 * logs every statement, which costs the server a little). `log_min_duration_statement = 0`
 * cluster-wide for the window, then the cluster's log is read back: how long Postgres spent
 * on each statement (parse, bind, execute), per statement text.
 */
export interface StatementProfile {
  /** Sum of logged durations in the scenario's database, ms. */
  totalMs: number;
  windowMs: number;
  top: { phase: string; text: string; n: number; totalMs: number; meanMs: number }[];
}

const LINE =
  /^\S+ \S+ \S+ \[\d+\] (\S*) LOG:\s+duration: ([\d.]+) ms\s+(parse|bind|execute|statement)\s*([^:]*):\s?(.*)$/;

export async function statementLog(admin: PgAdmin, clusterDir: string, dbName: string) {
  const file = path.join(clusterDir, "log");
  await admin.sql.unsafe(`alter system set log_line_prefix = '%m [%p] %d '`);
  await admin.sql.unsafe(`alter system set log_min_duration_statement = 0`);
  await admin.sql`select pg_reload_conf()`;
  await new Promise((r) => setTimeout(r, 200)); // backends re-read the configuration on their next command
  const from = fs.statSync(file).size;
  const t0 = performance.now();
  return {
    async stop(): Promise<StatementProfile> {
      const windowMs = performance.now() - t0;
      await admin.sql.unsafe(`alter system reset log_min_duration_statement`);
      await admin.sql.unsafe(`alter system reset log_line_prefix`);
      await admin.sql`select pg_reload_conf()`;
      const to = fs.statSync(file).size;
      const buf = Buffer.alloc(Math.min(to - from, 512 * 2 ** 20)); // bounded: 512 MB of log at most
      const fd = fs.openSync(file, "r");
      try {
        fs.readSync(fd, buf, 0, buf.length, from);
      } finally {
        fs.closeSync(fd);
      }
      const agg = new Map<string, { phase: string; text: string; n: number; totalMs: number }>();
      let totalMs = 0;
      for (const line of buf.toString("utf8").split("\n")) {
        const m = LINE.exec(line);
        if (!m || m[1] !== dbName) continue;
        const ms = Number(m[2]);
        const text = normalize(m[5]);
        const k = `${m[3]} ${text}`;
        const a = agg.get(k) ?? { phase: m[3], text, n: 0, totalMs: 0 };
        a.n++;
        a.totalMs += ms;
        agg.set(k, a);
        totalMs += ms;
      }
      const top = [...agg.values()]
        .sort((a, b) => b.totalMs - a.totalMs)
        .slice(0, 12)
        .map((a) => ({ ...a, meanMs: a.totalMs / a.n }));
      return { totalMs, windowMs, top };
    },
  };
}

/** One line per statement shape: values lists of a batch insert collapse to one. */
function normalize(q: string): string {
  return q
    .replace(/\(\$\d+(, \$\d+)*\)(, \(\$\d+(, \$\d+)*\))+/g, "($…), …")
    .replace(/\$\d+/g, "$n")
    .slice(0, 110);
}

export function renderStatements(name: string, commits: number | undefined, p: StatementProfile): string {
  const lines = [
    `Postgres statement time, ${name}: ${p.totalMs.toFixed(0)} ms in a ${p.windowMs.toFixed(0)} ms window` +
      (commits
        ? `; ${(p.totalMs / commits).toFixed(3)} ms of statements per commit against a ${(p.windowMs / commits).toFixed(3)} ms commit cycle`
        : ""),
  ];
  for (const s of p.top) {
    lines.push(
      `  ${s.totalMs.toFixed(0).padStart(6)} ms  ${String(s.n).padStart(6)}×  mean ${s.meanMs.toFixed(3)} ms  ${s.phase}: ${s.text}`,
    );
  }
  return lines.join("\n");
}
