/**
 * Leases (docs/PROTOCOL.md §5): Chips signs, with Ed25519, which runner may run which run, for
 * which exact start request, until when. The runner verifies before launching anything
 * ([RN1]); a request changed on the way (repository, profile, commands…) no longer matches
 * its lease's `request_sha256`.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { LeaseClaims, type Lease, type StartRequest } from "@/lib/core/protocol/runner-contract";

const b64u = (b: Buffer | string) => Buffer.from(b).toString("base64url");

/** JSON with object keys sorted, so both ends hash the same bytes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The hash a lease binds: the start request without its lease. */
export function requestHash(req: Omit<StartRequest, "lease">): string {
  const { lease: _lease, ...rest } = req as StartRequest;
  return createHash("sha256").update(canonical(rest)).digest("hex");
}

export function signLease(privateKey: KeyObject, claims: LeaseClaims): Lease {
  const encoded = b64u(JSON.stringify(claims));
  return { claims: encoded, signature: b64u(sign(null, Buffer.from(encoded), privateKey)) };
}

export type LeaseVerdict = { ok: true; claims: LeaseClaims } | { ok: false; reason: string };

/**
 * Is this lease Chips' signature over this request, for this runner, still valid at `now`?
 * Every failure names its reason: it is shown on the refused run.
 */
export function verifyLease(publicKeyPem: string, req: StartRequest, runnerId: string, now = Date.now()): LeaseVerdict {
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem);
  } catch {
    return { ok: false, reason: "lease refused: this runner has no valid Chips public key" };
  }
  let good = false;
  try {
    good = verify(null, Buffer.from(req.lease.claims), key, Buffer.from(req.lease.signature, "base64url"));
  } catch {
    good = false;
  }
  if (!good)
    return { ok: false, reason: "lease refused: the signature does not verify (tampered or not from this Chips)" };
  let claims: LeaseClaims;
  try {
    const parsed = LeaseClaims.safeParse(JSON.parse(Buffer.from(req.lease.claims, "base64url").toString("utf8")));
    if (!parsed.success) return { ok: false, reason: "lease refused: its claims are malformed" };
    claims = parsed.data;
  } catch {
    return { ok: false, reason: "lease refused: its claims are malformed" };
  }
  if (claims.run_id !== req.run_id) return { ok: false, reason: "lease refused: it is for another run" };
  if (claims.runner_id !== runnerId) return { ok: false, reason: "lease refused: it is for another runner" };
  if (claims.request_sha256 !== requestHash(req))
    return { ok: false, reason: "lease refused: the start request was changed after signing" };
  const expires = Date.parse(claims.expires_at);
  if (!Number.isFinite(expires) || expires <= now)
    return { ok: false, reason: `lease refused: it expired at ${claims.expires_at}` };
  return { ok: true, claims };
}
