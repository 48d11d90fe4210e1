import os from "node:os";
import { execFileSync } from "node:child_process";

/** `--name value` and `--flag` from argv. */
export function flags(argv = process.argv.slice(2)): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const [k, inline] = a.slice(2).split("=", 2);
    const v = inline ?? (argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[++i] : "true");
    m.set(k, [...(m.get(k) ?? []), v]);
  }
  return m;
}

export const one = (m: Map<string, string[]>, k: string) => m.get(k)?.at(-1);
const numberFlag = (m: Map<string, string[]>, k: string, d: number, zero: boolean) => {
  const v = one(m, k);
  if (v === undefined) return d;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero))
    throw new Error(`--${k} takes a ${zero ? "non-negative" : "positive"} number`);
  return n;
};
export const num = (m: Map<string, string[]>, k: string, d: number) => numberFlag(m, k, d, false);
/** A flag where 0 means "skip this part" (the soak's `--seconds 0`, `--grow 0`). */
export const count = (m: Map<string, string[]>, k: string, d: number) => numberFlag(m, k, d, true);

/** The machine, for the report's header. */
export function machine(pgVersion?: string): string {
  const cpu = os.cpus()[0]?.model ?? "?";
  let psql = pgVersion ?? "";
  if (!psql) {
    try {
      psql = execFileSync("psql", ["--version"], { encoding: "utf8" }).trim();
    } catch {
      psql = "n/a";
    }
  }
  return `machine: ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.type()} ${os.release()}; PostgreSQL: ${psql}`;
}
