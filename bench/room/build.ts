import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "../lib/proc";

/** What the production bundle is built from: newer than `.next/BUILD_ID` means stale. */
const SOURCES = [
  "app",
  "components",
  "lib/browser",
  "lib/core/protocol",
  "lib/server",
  "db",
  "next.config.ts",
  "postcss.config.mjs",
];

function newest(p: string, since: number): string | null {
  const full = path.join(ROOT, p);
  let st: fs.Stats;
  try {
    st = fs.statSync(full);
  } catch {
    return null;
  }
  if (st.isFile()) return st.mtimeMs > since ? p : null;
  for (const e of fs.readdirSync(full)) {
    const hit = newest(path.join(p, e), since);
    if (hit) return hit;
  }
  return null;
}

/**
 * A production build (`npx next build`) when `.next/BUILD_ID` is missing or older than a
 * source it is built from; `force` rebuilds anyway, `skip` never does. Says what it did.
 */
export function ensureBuild(opts: { force?: boolean; skip?: boolean } = {}): string {
  const id = path.join(ROOT, ".next", "BUILD_ID");
  const built = fs.existsSync(id) ? fs.statSync(id).mtimeMs : 0;
  const stale = built ? (SOURCES.map((s) => newest(s, built)).find(Boolean) ?? null) : "no .next/BUILD_ID";
  if (opts.skip) return stale ? `build is stale (${stale}) but --no-build was given` : "production build is current";
  if (!stale && !opts.force) return "production build is current";
  process.stderr.write(`[room] next build (${opts.force ? "--build" : `stale: ${stale}`})…\n`);
  const r = spawnSync("npx", ["next", "build"], {
    cwd: ROOT,
    stdio: ["ignore", 2, 2],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`next build failed (exit ${r.status})`);
  return `built now (${opts.force ? "--build" : `stale: ${stale}`})`;
}
