import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS, errorsOf, type ErrorCode } from "../lib/core/protocol";
import { ROUTES } from "../lib/core/routes";

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * The codes a request to `POST /api/v1/events` can be refused with, read off the code that
 * refuses it: the stateless checks and the judge's rules (lib/server/ingest/) and the
 * schema's parse (lib/core/protocol/parse.ts). Every quoted error code there is one.
 */
function ingestCodes(): Set<ErrorCode> {
  const dir = "lib/server/ingest";
  const files = [...fs.readdirSync(dir).map((f) => path.join(dir, f)), "lib/core/protocol/parse.ts"];
  const found = new Set<ErrorCode>();
  for (const f of files)
    for (const m of fs.readFileSync(f, "utf8").matchAll(/"([a-z_]+)"/g))
      if (Object.hasOwn(ERROR_STATUS, m[1])) found.add(m[1] as ErrorCode);
  return found;
}

describe("[ARCH5] no hand-listed drift between the error codes and who answers them", () => {
  it("[ARCH5] the events route declares every code ingest refuses with, and declares none ingest never gives", () => {
    const ingest = ingestCodes();
    const declared = ROUTES.postEvents.errors;
    const answered = new Set(errorsOf(ROUTES.postEvents));
    expect([...ingest].filter((c) => !answered.has(c)).sort()).toEqual([]);
    expect(declared.filter((c) => !ingest.has(c))).toEqual([]);
  });

  it("[ARCH5] every code in the error table is one some route may answer", () => {
    const answered = new Set(Object.values(ROUTES).flatMap((r) => errorsOf(r)));
    expect(CODES.filter((c) => !answered.has(c))).toEqual([]);
  });
});
