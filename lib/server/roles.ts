import type { Role } from "@/lib/core/protocol";

/**
 * What a person may do in their workspace:
 * - **viewer** watches and reviews: reads rooms, runs, receipts, artifacts;
 * - **member** also posts, starts runs and steers, pauses, resumes, cancels or force-finishes them, and opens rooms;
 * - **owner** also manages people (invites, revokes), harnesses and runners and their tokens.
 * Harnesses and runners act as the protocol lets their kind ([ENV10]); the admin token manages everything.
 */
export type { Role } from "@/lib/core/protocol";

export type Action = "write" | "manage";

const RANK: Record<Role, number> = { viewer: 0, member: 1, owner: 2 };
const NEEDS: Record<Action, Role> = { write: "member", manage: "owner" };

/** Whether `cred` may do `action`: persons by role; the admin always; harnesses write as the catalogue says, never manage. */
export function may(cred: { kind: string; role?: Role }, action: Action): boolean {
  if (cred.kind === "admin") return true;
  if (cred.kind !== "person") return action === "write";
  return RANK[cred.role ?? "viewer"] >= RANK[NEEDS[action]];
}

export const refusedBecause = (action: Action) =>
  action === "write"
    ? "viewers watch and review: this needs a member or an owner"
    : "this needs the workspace's owner (or the admin token)";
