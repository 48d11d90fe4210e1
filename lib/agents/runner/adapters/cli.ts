import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** An agent CLI: this package's own (node_modules/.bin) when installed, else the name on PATH. */
export function packageBin(name: string): string {
  const local = path.resolve(import.meta.dirname, "../../../node_modules/.bin", name);
  return fs.existsSync(local) ? local : name;
}

/**
 * The CLI's version (`<bin> --version`, with `strip` taken off), or null when it is not
 * installed or does not run. Asked once per binary: the runner checks it at every start.
 */
const versions = new Map<string, Promise<string | null>>();
export function cliVersion(bin: string, strip: RegExp): Promise<string | null> {
  let v = versions.get(bin);
  if (!v) {
    v = run(bin, ["--version"], { timeout: 20_000 }).then(
      ({ stdout }) => stdout.trim().replace(strip, "") || "unknown",
      () => null,
    );
    versions.set(bin, v);
  }
  return v;
}
