import { spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * The real `chips` CLI (bin/chips.mjs) as its own process against a server: none of this
 * process's CHIPS_, OTEL_ or DATABASE_URL variables leak in; `env` adds its own.
 */
export function chipsCli(
  args: string[],
  o: { url: string; token: string; cwd?: string; env?: Record<string, string> },
): Promise<{ code: number | null; out: string }> {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e))
    if (k.startsWith("CHIPS_") || k.startsWith("OTEL_") || k === "DATABASE_URL") delete e[k];
  Object.assign(e, {
    CHIPS_URL: o.url,
    CHIPS_TOKEN: o.token,
    CHIPS_DATA_DIR: path.join(ROOT, "no-such-data-dir"),
    ...o.env,
  });
  const proc = spawn(process.execPath, [path.join(ROOT, "bin", "chips.mjs"), ...args], { cwd: o.cwd ?? ROOT, env: e });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => proc.on("close", (code) => resolve({ code, out })));
}
