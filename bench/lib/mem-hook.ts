/**
 * Loaded into a server child with `node --expose-gc --import` (bench only): every 500 ms it
 * runs a full GC and writes `process.memoryUsage()` to CHIPS_BENCH_MEM_FILE (atomically), so
 * a bench reads the live heap — what the server holds, not garbage not yet collected — from
 * outside the process without touching the server's code.
 */
import fs from "node:fs";

const file = process.env.CHIPS_BENCH_MEM_FILE;
const gc = (globalThis as { gc?: () => void }).gc;
if (file) {
  if (!gc) throw new Error("mem-hook needs node --expose-gc");
  setInterval(() => {
    if (fs.existsSync(file + ".pause")) return;
    gc();
    fs.writeFileSync(file + ".tmp", JSON.stringify({ at: Date.now(), ...process.memoryUsage() }));
    fs.renameSync(file + ".tmp", file);
  }, 500).unref();
}
