// @ts-check
/**
 * What the hook's Node helpers (gate.mjs, ask.mjs) share: reading a control file that may not
 * be there, and naming the records they add to the queue. Plain JavaScript without
 * dependencies: each starts inside a hook call.
 */
import fs from "node:fs";

/** @param {string} file @returns {string | null} the file's text, or null when it cannot be read */
export const readText = (file) => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
};

/**
 * Queue names sort by time in ns, like the hook's own (`date +%s%N`): each name this returns
 * is never behind the hook's record `queueId` nor behind the one before it.
 * @param {string | undefined} queueId
 */
export function queueNamer(queueId) {
  let lastNs = 0n;
  return () => {
    const now = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
    const floor = BigInt((queueId ?? "0").split("-")[0] || "0") + 1n;
    let ns = now > floor ? now : floor;
    if (ns <= lastNs) ns = lastNs + 1n;
    lastNs = ns;
    return `${ns}-${process.pid}`;
  };
}
