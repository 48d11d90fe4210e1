#!/usr/bin/env node
// The `chips` command: registers tsx so the TypeScript under cli/ runs as is.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

// `chips events | head`: a closed pipe ends the command quietly.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

// The package's own tsconfig (its `@/…` paths), wherever the command is run from.
register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
const { run } = await import("../cli/main.ts");
process.exitCode = await run(process.argv.slice(2));
