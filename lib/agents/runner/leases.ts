/** A job's lease as this runner tracks it: when it was issued, when it lapses, whether a renewal is asked. */
interface HeldLease {
  issued: number;
  expires: number;
  asking: boolean;
}

/** The leases of this runner's jobs, from their signed claims, and which are due for renewal. */
export class Leases {
  private held = new Map<string, HeldLease>();

  note(runId: string, lease: { claims: string }) {
    try {
      const c = JSON.parse(Buffer.from(lease.claims, "base64url").toString("utf8")) as {
        issued_at: string;
        expires_at: string;
      };
      this.held.set(runId, { issued: Date.parse(c.issued_at), expires: Date.parse(c.expires_at), asking: false });
    } catch {
      // a lease we verified always parses; nothing to track otherwise
    }
  }

  forget(runId: string) {
    this.held.delete(runId);
  }

  /** The lease to renew now (half its time is left and no renewal is asked), else null. */
  due(runId: string): HeldLease | null {
    const lease = this.held.get(runId);
    if (!lease || lease.asking) return null;
    if (lease.expires - Date.now() > (lease.expires - lease.issued) / 2) return null;
    return lease;
  }
}
