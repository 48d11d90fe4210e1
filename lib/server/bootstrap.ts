import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { credentials, settings } from "@/db/schema";
import { hashToken, newToken, storeCredential } from "./credentials";
import { createWorkspaceBundle } from "./workspaces";

export interface BootInfo {
  adminTokenFile: string;
  defaults: { workspace_id: string; space_id: string; harness_id: string; person_id: string };
  firstStart: boolean;
}

const ADMIN_FILE = "admin-token";
const HARNESS_FILE = "harness-token";
const PERSON_FILE = "person-token";

function writeSecret(file: string, value: string) {
  fs.writeFileSync(file, value + "\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

function readSecret(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

/**
 * First start: an admin token (its hash in the database, the token itself in the data
 * directory, mode 0600), and a default workspace with a room, a harness and its owner.
 * Later starts find them again; a data directory whose token the database does not know
 * (a new database) gets a new one.
 */
export async function bootstrap(db: Db, dataDir: string): Promise<BootInfo> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const adminFile = path.join(dataDir, ADMIN_FILE);
  const existing = readSecret(adminFile);
  const known = existing
    ? (
        await db
          .select({ h: credentials.tokenHash })
          .from(credentials)
          .where(eq(credentials.tokenHash, hashToken(existing)))
          .limit(1)
      ).length > 0
    : false;
  if (!known) {
    const token = newToken("admin");
    await storeCredential(db, token, { kind: "admin", workspaceId: null, subjectId: "admin" });
    writeSecret(adminFile, token);
  }

  const rows = await db.select().from(settings);
  const get = (k: string) => rows.find((r) => r.key === k)?.value;
  let firstStart = false;
  if (!get("default_workspace_id")) {
    firstStart = true;
    const made = await createWorkspaceBundle(db, {
      workspace: "Default workspace",
      space: "general",
      harness: "default-harness",
    });
    await db
      .insert(settings)
      .values([
        { key: "default_workspace_id", value: made.workspace_id },
        { key: "default_space_id", value: made.space_id },
        { key: "default_harness_id", value: made.harness_id },
        { key: "default_person_id", value: made.person_id },
      ])
      .onConflictDoNothing();
    writeSecret(path.join(dataDir, HARNESS_FILE), made.token);
    writeSecret(path.join(dataDir, PERSON_FILE), made.person_token);
  }
  const again = await db.select().from(settings);
  const val = (k: string) => again.find((r) => r.key === k)!.value;
  return {
    adminTokenFile: adminFile,
    firstStart,
    defaults: {
      workspace_id: val("default_workspace_id"),
      space_id: val("default_space_id"),
      harness_id: val("default_harness_id"),
      person_id: val("default_person_id"),
    },
  };
}

export const DATA_FILES = { admin: ADMIN_FILE, harness: HARNESS_FILE, person: PERSON_FILE } as const;
