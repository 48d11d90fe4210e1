import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../../db/client";

declare module "vitest" {
  export interface ProvidedContext {
    dbKind: "pglite" | "postgres";
    /** PGlite: a migrated data directory each test server copies. */
    pgliteTemplate: string;
    /** Postgres: the cluster's admin URL, and a migrated template database. */
    pgUrl: string;
    pgTemplate: string;
  }
}

/**
 * One migrated template per run, so every test server starts on a fresh database quickly:
 * a PGlite directory to copy, or a Postgres database to CREATE DATABASE … TEMPLATE from.
 */
export default async function setup(project: TestProject) {
  const kind = process.env.CHIPS_TEST_DB === "postgres" ? "postgres" : "pglite";
  project.provide("dbKind", kind);
  if (kind === "postgres") {
    const url = process.env.CHIPS_TEST_PG_URL;
    if (!url) throw new Error("CHIPS_TEST_DB=postgres needs CHIPS_TEST_PG_URL (npm test starts a cluster and sets it)");
    const { default: postgres } = await import("postgres");
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const tpl = `chips_tpl_${process.pid}`;
    await admin.unsafe(`drop database if exists ${tpl}`);
    await admin.unsafe(`create database ${tpl}`);
    const u = new URL(url);
    u.pathname = `/${tpl}`;
    const db = await openDatabase({ databaseUrl: u.toString(), dataDir: os.tmpdir(), poolSize: 1 });
    await db.close();
    await admin.end();
    project.provide("pgUrl", url);
    project.provide("pgTemplate", tpl);
    project.provide("pgliteTemplate", "");
    return async () => {
      const a = postgres(url, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${tpl} with (force)`).catch(() => {});
      await a.end();
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-tpl-"));
  const db = await openDatabase({ dataDir: dir });
  await db.close();
  project.provide("pgliteTemplate", dir);
  project.provide("pgUrl", "");
  project.provide("pgTemplate", "");
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
