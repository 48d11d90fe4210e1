import { eq } from "drizzle-orm";
import { newId, type WorkspaceCreated } from "@/lib/core/protocol";
import type { Db } from "@/db/client";
import { harnesses, persons, settings, spaces, workspaces } from "@/db/schema";
import { newToken, storeCredential } from "./credentials";

export type InitResult = Omit<WorkspaceCreated, "room_url">;

export interface InitInput {
  workspace?: string;
  space?: string;
  harness?: string;
  owner?: string;
}

/** A workspace with one room, one harness and its owner: what `chips init` makes. */
export async function createWorkspaceBundle(db: Db, input: InitInput): Promise<InitResult> {
  const ws = newId("workspace");
  const spc = newId("space");
  const hrn = newId("harness");
  const usr = newId("person");
  const token = newToken("harness");
  const personToken = newToken("person");
  await db.transaction(async (tx) => {
    await tx.insert(workspaces).values({ id: ws, name: input.workspace || "My workspace" });
    await tx.insert(spaces).values({ id: spc, workspaceId: ws, name: input.space || "general" });
    await tx
      .insert(harnesses)
      .values({ id: hrn, workspaceId: ws, name: input.harness || "my-harness", kind: "harness" });
    await tx.insert(persons).values({ id: usr, workspaceId: ws, name: input.owner || "Owner", role: "owner" });
    await storeCredential(tx, token, { kind: "harness", workspaceId: ws, subjectId: hrn });
    await storeCredential(tx, personToken, { kind: "person", workspaceId: ws, subjectId: usr });
  });
  return { workspace_id: ws, space_id: spc, harness_id: hrn, token, person_id: usr, person_token: personToken };
}

export async function createSpace(db: Db, workspaceId: string, name: string) {
  const id = newId("space");
  await db.insert(spaces).values({ id, workspaceId, name });
  return { id, workspace_id: workspaceId, name };
}

/** A new harness (or runner) of a workspace and its token. */
export async function createHarness(db: Db, workspaceId: string, name: string, kind: "harness" | "runner" = "harness") {
  const id = newId(kind === "runner" ? "runner" : "harness");
  const token = newToken(kind);
  await db.transaction(async (tx) => {
    await tx.insert(harnesses).values({ id, workspaceId, name, kind });
    await storeCredential(tx, token, { kind, workspaceId, subjectId: id });
  });
  return { id, token };
}

export async function workspaceExists(db: Db, id: string): Promise<boolean> {
  const [row] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id)).limit(1);
  return !!row;
}

/** A server-wide setting written at first start (e.g. `default_workspace_id`). */
export async function defaultSetting(db: Db, key: string): Promise<string | null> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).limit(1);
  return row?.value ?? null;
}
