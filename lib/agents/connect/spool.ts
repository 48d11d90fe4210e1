import fs from "node:fs";
import path from "node:path";

/** A queue record's name: `<time in ns>-<pid>.json` (the hook's `date +%s%N`, the gate's clock). */
const NAME = /^(\d+)-(\d+)\.json$/;

/** Compare two record names by time, then pid. */
function byQueueOrder(a: string, b: string): number {
  const ma = NAME.exec(a)!;
  const mb = NAME.exec(b)!;
  const ta = BigInt(ma[1]);
  const tb = BigInt(mb[1]);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return Number(ma[2]) - Number(mb[2]);
}

/** The records waiting in `dir`, oldest first (temp files — dot-names — are not records yet). */
export function pending(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => NAME.test(n)).sort(byQueueOrder);
}

/** True when `name` comes at or before `last` in queue order (applied already). */
export function notAfter(name: string, last: string | null): boolean {
  return last !== null && byQueueOrder(name, last) <= 0;
}

/**
 * A hook whose gate died (or was killed by Claude Code's time limit) leaves its input as a
 * temp file `.in-<id>`: complete (the hook's `cat` had finished), only not published.
 * After `ageMs` it is taken into the queue under its own name, so nothing is lost.
 */
export function adoptOrphans(dir: string, ageMs: number, now = Date.now()): number {
  let n = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = /^\.in-(\d+-\d+)$/.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    try {
      if (now - fs.statSync(file).mtimeMs < ageMs) continue;
      fs.renameSync(file, path.join(dir, `${m[1]}.json`));
      n++;
    } catch {
      // taken meanwhile
    }
  }
  return n;
}
