import { eq } from "drizzle-orm";
import { claimDeliveries, type ClaimedDelivery } from "@/db/webhook-sql";
import { webhookDeliveries } from "@/db/schema";
import { markShown } from "../asks";
import type { ChipsServices } from "../services";
import { log } from "../log";

/** One attempt's time limit: a webhook that hangs is an attempt failed. */
const TIMEOUT_MS = 10_000;
/** How long a claimed delivery is held (past the attempt's limit), so no other node tries it at once. */
const HOLD_SECONDS = 60;
const MAX_WAIT_MS = 10 * 60_000;
const BATCH = 10;

/** Why an attempt failed, in words that never carry the URL (it is a secret of sorts). */
function failure(e: unknown): string {
  const err = e as { name?: string; cause?: { code?: string } };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return `no answer in ${TIMEOUT_MS / 1000} s`;
  return err?.cause?.code ? `could not connect (${err.cause.code})` : "could not connect";
}

/**
 * Webhook deliveries of new asks ([ASK7]): each round claims the deliveries that are due and
 * posts each once; a 2xx delivers it (and the ask counts as shown, `via: webhook`), anything
 * else is tried again after `webhookRetryMs`, doubling (at most 10 min), until
 * `webhookAttempts` — then it is logged failed. Every attempt is logged (never the URL).
 */
export class WebhookSender {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running = false;
  private again = false;

  constructor(private readonly svc: Pick<ChipsServices, "config" | "database" | "db" | "storage" | "writer">) {}

  start(everyMs = 1000): () => void {
    this.timer = setInterval(() => this.kick(), everyMs);
    this.timer.unref();
    return () => {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
    };
  }

  /** Deliver what is due now (a new ask was just enqueued), or as soon as the round under way ends. */
  kick(): void {
    if (!this.svc.storage.available) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.rounds()
      .catch((e) => this.svc.storage.refuse(e, "webhook deliveries"))
      .finally(() => (this.running = false));
  }

  private async rounds() {
    do {
      this.again = false;
      const claimed = await claimDeliveries(this.svc.database.run, BATCH, HOLD_SECONDS);
      await Promise.all(claimed.map((d) => this.attempt(d)));
      if (claimed.length === BATCH) this.again = true;
    } while (this.again);
  }

  private async attempt(d: ClaimedDelivery) {
    const { config } = this.svc;
    let status: number | null = null;
    let error: string | null = null;
    if (d.url === null) error = "the webhook was removed";
    else {
      try {
        const res = await fetch(d.url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "Chips-Webhook/1" },
          body: d.payload,
          redirect: "manual",
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        status = res.status;
        await res.body?.cancel().catch(() => {});
        if (status < 200 || status > 299) error = `HTTP ${status}`;
      } catch (e) {
        error = failure(e);
      }
    }
    const at = new Date();
    const done = error === null;
    const last = !done && (d.url === null || d.attempts >= config.webhookAttempts);
    const wait = Math.min(MAX_WAIT_MS, config.webhookRetryMs * 2 ** (d.attempts - 1));
    await this.svc.db
      .update(webhookDeliveries)
      .set({
        state: done ? "delivered" : last ? "failed" : "pending",
        lastStatus: status,
        lastError: error,
        ...(done ? { deliveredAt: at.toISOString() } : {}),
        ...(!done && !last ? { nextAt: new Date(at.getTime() + wait).toISOString() } : {}),
      })
      .where(eq(webhookDeliveries.id, d.id));
    log.info(
      { webhookId: d.webhook_id, askId: d.ask_id, attempt: d.attempts, status, error },
      done ? "webhook delivered" : last ? "webhook delivery failed for good" : "webhook delivery failed; retrying",
    );
    // A webhook took the ask: it reached people ([ASK4]), unless it had already, or was answered.
    if (done) await markShown(this.svc, d, "webhook");
  }
}
