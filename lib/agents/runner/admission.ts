import fs from "node:fs";
import path from "node:path";
import type { PermissionProfile, StartRequest } from "@/lib/core/protocol/runner-contract";
import { verifyLease } from "@/lib/core/protocol/runner-lease";
import type { Adapter } from "./adapter";

/** What a runner was given that a start request is checked against. */
export interface AdmissionConfig {
  repositories: Record<string, string>;
  adapters: Adapter[];
  secrets?: Record<string, string>;
  workDir: string;
}

export type Admission = { ok: true; repoDir: string; adapter: Adapter } | { ok: false; reason: string };

/**
 * [RN1] A start request's checks, before anything is made or launched: Chips' lease, the
 * repository allowlist, an adapter that can enforce the profile, the provider, the secrets
 * named, a free worktree name. A refusal says why, for the run's failure.
 */
export async function admit(
  o: AdmissionConfig,
  req: StartRequest,
  leaseKey: string | null,
  runnerId: string,
): Promise<Admission> {
  const refuse = (reason: string): Admission => ({ ok: false, reason });
  const lease = leaseKey
    ? verifyLease(leaseKey, req, runnerId)
    : { ok: false as const, reason: "lease refused: no Chips key to verify it with" };
  if (!lease.ok) return refuse(lease.reason);
  const repoDir = o.repositories[req.repository];
  if (!repoDir) return refuse(`repository "${req.repository}" is not on this runner's allowlist`);
  const adapter = o.adapters.find((a) => a.agent === req.agent);
  if (!adapter || !(await adapter.detect())) return refuse(`this runner cannot run the ${req.agent} agent`);
  const profiles = await adapter.profiles();
  if (!profiles.includes(req.profile as PermissionProfile)) {
    const why = (await adapter.sandboxProblem?.()) ?? null;
    return refuse(
      `the ${req.agent} adapter here cannot enforce the "${req.profile}" profile (it enforces: ${profiles.join(", ") || "none"}${why ? `: ${why}` : ""})`,
    );
  }
  if (req.provider !== null && !adapter.providers().includes(req.provider)) {
    const has = adapter.providers();
    return refuse(
      has.length
        ? `this runner has no ${req.agent} provider "${req.provider}" (it has: ${has.join(", ")})`
        : `the ${req.agent} adapter takes no provider (asked for "${req.provider}")`,
    );
  }
  const missing = req.secrets.filter((s) => !(o.secrets ?? {})[s]);
  if (missing.length) return refuse(`this runner has no secret named ${missing.join(", ")}`);
  if (fs.existsSync(path.join(o.workDir, "worktrees", req.worktree_name)))
    return refuse(`the worktree name "${req.worktree_name}" is taken on this runner`);
  return { ok: true, repoDir, adapter };
}
