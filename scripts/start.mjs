#!/usr/bin/env node
// `npm start`: build once when no production build exists, then run the custom server.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const web = process.env.CHIPS_WEB !== "0";
if (web && !existsSync(path.join(root, ".next", "BUILD_ID"))) {
  console.log("Chips: no production build yet; running `next build` once (about 30 s)...");
  const b = spawnSync(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "server.ts")], {
  cwd: root,
  stdio: "inherit",
  env: { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
// Pass stop signals on, so stopping `npm start` stops the server and releases its data directory.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => server.kill(sig));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
