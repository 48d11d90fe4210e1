/** Whether a harness is there: connected over /harness, or seen polling or posting lately. */
export interface PresenceState {
  harness_id: string;
  workspace_id: string | null;
  online: boolean;
  /** Since when it has been in this state (ms since epoch). */
  since: number;
}

/**
 * Harness presence on this node ([RUN1]: presence is not a state). A socket on /harness is
 * the signal; a harness without sockets counts as present while it polls or posts within
 * the grace. Changes go to listeners (the rooms) as they happen.
 */
export class Presence {
  private sockets = new Map<string, number>();
  private lastSeen = new Map<string, number>();
  private offlineSince = new Map<string, number>();
  private timers = new Map<string, NodeJS.Timeout>();
  private listeners = new Set<(p: PresenceState) => void>();
  private workspaceOf = new Map<string, string>();
  private readonly bootedAt: number;

  constructor(
    readonly graceMs: number,
    private now: () => number = () => Date.now(),
  ) {
    this.bootedAt = now();
  }

  onChange(fn: (p: PresenceState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  connected(harnessId: string, workspaceId: string) {
    this.workspaceOf.set(harnessId, workspaceId);
    const was = this.isOnline(harnessId);
    this.sockets.set(harnessId, (this.sockets.get(harnessId) ?? 0) + 1);
    this.offlineSince.delete(harnessId);
    if (!was) this.emit(harnessId);
  }

  disconnected(harnessId: string) {
    const n = (this.sockets.get(harnessId) ?? 1) - 1;
    if (n > 0) return void this.sockets.set(harnessId, n);
    this.sockets.delete(harnessId);
    this.lastSeen.set(harnessId, this.now());
    this.goOfflineLater(harnessId);
  }

  /** A poll or a post: alive for another grace period. */
  seen(harnessId: string, workspaceId: string) {
    this.workspaceOf.set(harnessId, workspaceId);
    const was = this.isOnline(harnessId);
    this.lastSeen.set(harnessId, this.now());
    this.offlineSince.delete(harnessId);
    if (!was) this.emit(harnessId);
    if (!this.sockets.get(harnessId)) this.goOfflineLater(harnessId);
  }

  isOnline(harnessId: string): boolean {
    if (this.sockets.get(harnessId)) return true;
    const seen = this.lastSeen.get(harnessId);
    return seen !== undefined && this.now() - seen < this.graceMs;
  }

  /** Offline longer than the grace: its runs are shown unresponsive and may be force-finished. */
  isUnresponsive(harnessId: string): boolean {
    const s = this.state(harnessId);
    return !s.online && this.now() - s.since >= this.graceMs;
  }

  state(harnessId: string): PresenceState {
    const workspace_id = this.workspaceOf.get(harnessId) ?? null;
    if (this.isOnline(harnessId))
      return { harness_id: harnessId, workspace_id, online: true, since: this.lastSeen.get(harnessId) ?? this.now() };
    const since = this.offlineSince.get(harnessId) ?? this.lastSeen.get(harnessId) ?? this.bootedAt;
    return { harness_id: harnessId, workspace_id, online: false, since };
  }

  /**
   * Forget harnesses gone quiet since before `cutoff` and offline past the grace ([SCL1]): no
   * socket, no timer. One forgotten reads as offline since this node started — unresponsive,
   * as it was — until it connects, polls or posts again.
   */
  release(cutoff: number): void {
    const now = this.now();
    for (const [id, seen] of this.lastSeen) {
      if (this.sockets.get(id) || this.timers.has(id) || seen >= cutoff) continue;
      const since = this.offlineSince.get(id) ?? seen;
      if (since >= cutoff || now - since < this.graceMs) continue;
      this.lastSeen.delete(id);
      this.offlineSince.delete(id);
      this.workspaceOf.delete(id);
    }
  }

  held() {
    return { presence: this.workspaceOf.size, presenceTimers: this.timers.size };
  }

  close() {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * One timer per harness, armed once: a post or poll only moves `lastSeen`, and the timer,
   * when it fires early, re-arms for what is left of the grace (re-arming on every POST cost
   * a clearTimeout and a setTimeout per request on the ingest path: docs/PERFORMANCE.md).
   */
  private goOfflineLater(harnessId: string) {
    if (this.timers.has(harnessId)) return;
    const arm = () => {
      const seen = this.lastSeen.get(harnessId) ?? this.now();
      const t = setTimeout(
        () => {
          this.timers.delete(harnessId);
          if (this.sockets.get(harnessId)) return;
          const last = this.lastSeen.get(harnessId) ?? seen;
          if (this.now() - last < this.graceMs) return arm();
          this.offlineSince.set(harnessId, last);
          this.emit(harnessId);
        },
        Math.max(0, seen + this.graceMs - this.now()) + 5,
      );
      t.unref();
      this.timers.set(harnessId, t);
    };
    arm();
  }

  private emit(harnessId: string) {
    const s = this.state(harnessId);
    for (const fn of this.listeners) fn(s);
  }
}
