/**
 * Room-in-the-browser bench: a production server (NODE_ENV=production, `next build`),
 * a room of 10,000 events seeded through the API, headless Chromium opening a fresh
 * login link. Times navigation start → the newest event painted, then scrolls the
 * timeline back through 2,000 older events and reports long tasks. Never run in CI.
 *
 *   node --import tsx bench/room/main.ts [--db pglite|postgres|both] [--reps 3]
 *        [--events 10000] [--older 2000] [--seconds 90] [--build | --no-build]
 *        [--quiet-wait S] [--short-texts] [--profile [DIR]]
 *
 * --seconds bounds each visit's load wait and its scroll-back, at least 60 (the run stops by itself).
 * --quiet-wait S: before each visit, wait up to S seconds for the machine to be < 30% busy.
 * --profile: one more visit, not counted, with a Chromium trace (where the long tasks go)
 *   and a CPU profile of the server; also the per-item cost of the room's Markdown.
 * --short-texts: two-word messages only (A/B: what the Markdown texts cost the timeline).
 */
import fs from "node:fs";
import path from "node:path";
import { flags, machine, num, one } from "../lib/args";
import { parseDbFlag } from "../lib/pg";
import { tmpDir } from "../lib/proc";
import { runRoomBench } from "./bench";

async function main() {
  const f = flags();
  const prof = one(f, "profile");
  const profileDir = prof === undefined ? undefined : prof === "true" ? tmpDir("chips-room-prof-") : path.resolve(prof);
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  console.log(machine());
  await runRoomBench({
    dbs: parseDbFlag(one(f, "db")),
    reps: num(f, "reps", 3),
    events: num(f, "events", 10_000),
    older: num(f, "older", 2000),
    shortTexts: f.has("short-texts"),
    // `npm run bench -- --seconds 5` forwards its --seconds here too: a visit needs ~20 s, so never below 60.
    timeoutS: Math.max(60, num(f, "seconds", 90)),
    quietWait: Number(one(f, "quiet-wait") ?? 0),
    build: { force: f.has("build"), skip: f.has("no-build") },
    profileDir,
  });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
