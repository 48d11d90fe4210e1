import { and, eq, isNull } from "drizzle-orm";
import { credentials, harnesses, persons, sessions } from "@/db/schema";
import { notify } from "./notify";
import type { Role } from "./roles";
import type { AccessChange } from "./buses";
import type { ChipsServices } from "./services";

/** The Postgres channel on which a node tells the others whom it revoked (or re-roled). */
export const REVOKED_CHANNEL = "chips_revoked";

/**
 * A NOTIFY payload: the id (`role:` + id for a role change), a space, and the node that
 * sent it — which hears its own notification too and has already acted on it.
 */
const accessPayload = (id: string, change: AccessChange, node: string) =>
  `${change === "role" ? "role:" : ""}${id} ${node}`;
export function parseAccessPayload(payload: string): { id: string; change: AccessChange; node: string } {
  const [what, node = ""] = payload.split(" ");
  return what.startsWith("role:") ? { id: what.slice(5), change: "role", node } : { id: what, change: "revoked", node };
}

/** This node first, then every other node on the NOTIFY. */
async function tellEveryNode(
  svc: Pick<ChipsServices, "access" | "database" | "nodeId">,
  id: string,
  change: AccessChange,
) {
  svc.access.publish(id, change);
  if (svc.database.kind === "postgres")
    await notify(svc.database, REVOKED_CHANNEL, accessPayload(id, change, svc.nodeId));
}

/** What a revocation or a role change came to. */
export type AccessOutcome = "done" | "gone" | "last_owner";

/**
 * The workspace's live owners, their rows locked until the transaction ends ([ROLE1]): a
 * concurrent step-down or revocation waits here, then counts the owners as this one left
 * them — so two owners stepping down at once leave one, not none.
 */
const lockOwners = (tx: Pick<ChipsServices["db"], "select">, workspaceId: string) =>
  tx
    .select({ id: persons.id })
    .from(persons)
    .where(and(eq(persons.workspaceId, workspaceId), eq(persons.role, "owner"), isNull(persons.revokedAt)))
    .for("update");

/**
 * Revoke a person (all their sessions and tokens) or a harness/runner (all its tokens) of a
 * workspace. The database says so first; then this node forgets them and closes their
 * sockets (rooms and /harness), and every other node does the same on the NOTIFY — so a
 * revoked browser's open room stops receiving at once, wherever it is connected.
 * Answers `gone` when there is no such subject in the workspace, `last_owner` (nothing
 * changed) for the workspace's only owner.
 */
export async function revoke(
  svc: Pick<ChipsServices, "access" | "database" | "db" | "nodeId">,
  workspaceId: string,
  subjectId: string,
): Promise<AccessOutcome> {
  const now = new Date().toISOString();
  const outcome = await svc.db.transaction(async (tx): Promise<AccessOutcome> => {
    const owners = await lockOwners(tx, workspaceId);
    if (owners.length <= 1 && owners.some((o) => o.id === subjectId)) return "last_owner";
    const person = await tx
      .update(persons)
      .set({ revokedAt: now })
      .where(and(eq(persons.id, subjectId), eq(persons.workspaceId, workspaceId)))
      .returning({ id: persons.id });
    const harness = person.length
      ? []
      : await tx
          .select({ id: harnesses.id })
          .from(harnesses)
          .where(and(eq(harnesses.id, subjectId), eq(harnesses.workspaceId, workspaceId)));
    if (!person.length && !harness.length) return "gone";
    await tx
      .update(credentials)
      .set({ revokedAt: now })
      .where(and(eq(credentials.subjectId, subjectId), eq(credentials.workspaceId, workspaceId)));
    if (person.length) await tx.delete(sessions).where(eq(sessions.personId, subjectId));
    return "done";
  });
  if (outcome === "done") await tellEveryNode(svc, subjectId, "revoked");
  return outcome;
}

/**
 * Revoke one token (tok_…) of a workspace, leaving its holder's other tokens and sessions:
 * requests with it are refused at once and the sockets it opened close, on every node.
 * Answers false when the workspace has no such live token.
 */
export async function revokeToken(
  svc: Pick<ChipsServices, "access" | "database" | "db" | "nodeId">,
  workspaceId: string,
  tokenId: string,
): Promise<boolean> {
  const gone = await svc.db
    .update(credentials)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(eq(credentials.id, tokenId), eq(credentials.workspaceId, workspaceId), isNull(credentials.revokedAt)))
    .returning({ id: credentials.id });
  if (!gone.length) return false;
  await tellEveryNode(svc, tokenId, "revoked");
  return true;
}

/**
 * Give a person another role. Their cached credentials are forgotten on every node, so the
 * next request is judged by the new role; their open rooms are told and keep going. The
 * workspace's only owner cannot step down (`last_owner`, nothing changed).
 */
export async function changeRole(
  svc: Pick<ChipsServices, "access" | "database" | "db" | "nodeId">,
  workspaceId: string,
  personId: string,
  role: Role,
): Promise<AccessOutcome> {
  const outcome = await svc.db.transaction(async (tx): Promise<AccessOutcome> => {
    const owners = await lockOwners(tx, workspaceId);
    if (role !== "owner" && owners.length <= 1 && owners.some((o) => o.id === personId)) return "last_owner";
    const changed = await tx
      .update(persons)
      .set({ role })
      .where(and(eq(persons.id, personId), eq(persons.workspaceId, workspaceId), isNull(persons.revokedAt)))
      .returning({ id: persons.id });
    return changed.length ? "done" : "gone";
  });
  if (outcome === "done") await tellEveryNode(svc, personId, "role");
  return outcome;
}
