import type { ChipsClient } from "@/lib/agents/sdk";
import type { EventInput, StoredEvent } from "@/lib/agents/sdk/types";
import { isChipsError } from "@/lib/agents/sdk/errors";
import type { ObjectRef } from "@/lib/core/protocol/runner-contract";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import type { SecretMask } from "./mask";

type RunnerKind = "started" | "log" | "checkpoint" | "change-set" | "failed" | "completed";

/** Largest piece of text kept inline in an event; more goes to the object store ([RN3]). */
export const INLINE_MAX = 4000;

/**
 * One job's way out to Chips: events posted strictly in the order they were made (room
 * events and runner events share one queue), `runner.event` numbered 1, 2, 3… ([RN2]),
 * every string and every object masked first ([RN4]). The SDK retries a post with the same
 * ids, so a lost answer never duplicates an event.
 */
export class Outbox {
  private sequence = 0;
  private chain: Promise<unknown> = Promise.resolve();
  /** Set when Chips refuses the run for good (finished elsewhere): the job should stop. */
  gone: string | null = null;
  private onGone: ((why: string) => void) | null = null;

  constructor(
    private client: ChipsClient,
    private token: string,
    private runId: string,
    private spaceId: string,
    private mask: SecretMask,
  ) {}

  whenGone(fn: (why: string) => void) {
    this.onGone = fn;
  }

  /** Room events (run.started, run.step, run.status, message.posted, run.finished, acks). */
  post(...events: EventInput[]): Promise<StoredEvent[] | null> {
    const masked = events.map((e) => this.maskEvent({ run_id: this.runId, ...e } as EventInput));
    return this.enqueue(Promise.resolve(masked));
  }

  /**
   * A runner event; its sequence is taken now, so the order of calls is the order of sequences
   * ([RN2]). A payload still being made (an object upload) holds the queue until it is ready:
   * what comes after waits rather than overtake it.
   */
  runnerEvent(
    kind: RunnerKind,
    message: string,
    payload?: Record<string, unknown> | Promise<Record<string, unknown>>,
  ): Promise<StoredEvent[] | null> {
    const base = {
      type: "runner.event",
      run_id: this.runId,
      sequence: ++this.sequence,
      kind,
      message: clipUtf8(this.mask.text(message), LIMITS.runnerMessage), // masked first: a cut never halves a secret
      occurred_at: new Date().toISOString(),
    };
    return this.enqueue(
      Promise.resolve(payload).then((p) => [
        (p ? { ...base, payload: JSON.parse(this.mask.text(JSON.stringify(p))) } : base) as EventInput,
      ]),
    );
  }

  /** A text with the job's secrets masked ([RN4]): what a tool call's texts pass through before they are clipped. */
  maskText(text: string): string {
    return this.mask.text(text);
  }

  /**
   * A tool call's end whose output is over the inline limit ([TOOL3], [RN3]): in its place in
   * the queue, the whole output (masked) goes to the object store, then the event with its
   * reference. An upload that fails leaves the event its tail and size, and says so.
   */
  postWithOutput(output: Buffer, event: EventInput): Promise<StoredEvent[] | null> {
    const ref = this.upload(output).catch((err: unknown) => {
      console.error(`[runner] ${this.runId}: a tool call's output was not stored:`, err);
      return null;
    });
    return this.enqueue(
      ref.then((r) => [
        this.maskEvent({ run_id: this.runId, ...event, ...(r ? { output_ref: r } : {}) } as EventInput),
      ]),
    );
  }

  /** Wait for everything queued so far. */
  flush(): Promise<unknown> {
    return this.chain;
  }

  private enqueue(ready: Promise<EventInput[]>): Promise<StoredEvent[] | null> {
    const next = this.chain.then(async () => {
      let events: EventInput[];
      try {
        events = await ready;
      } catch (err) {
        // Not posted, and said: the queue goes on (a rejected link would stop every later event).
        console.error(`[runner] ${this.runId}: an event could not be made:`, err);
        return null;
      }
      if (this.gone) return null;
      try {
        return await this.client.post(events.map((e) => ({ space_id: this.spaceId, ...e }) as EventInput));
      } catch (err) {
        if (
          isChipsError(err) &&
          (err.code === "run_finished" || err.code === "run_not_found" || err.code === "forbidden")
        ) {
          this.gone = `${err.code}: ${err.detail}`;
          this.onGone?.(this.gone);
          return null;
        }
        console.error(
          `[runner] ${this.runId}: could not post ${events.map((e) => e.type).join(", ")}:`,
          isChipsError(err) ? err.detail : err,
        );
        return null;
      }
    });
    this.chain = next;
    return next;
  }

  private maskEvent(e: EventInput): EventInput {
    return JSON.parse(this.mask.text(JSON.stringify(e))) as EventInput;
  }

  /** Store bytes (masked) in the object store; retried: the store is content-addressed. */
  async upload(bytes: Buffer): Promise<ObjectRef> {
    const body = this.mask.bytes(bytes);
    let lastError: unknown = null;
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const res = await fetch(`${this.client.url}/api/v1/runs/${this.runId}/objects`, {
          method: "PUT",
          headers: { authorization: `Bearer ${this.token}`, "content-type": "application/octet-stream" },
          body: new Uint8Array(body),
        });
        if (res.status === 201) return (await res.json()) as ObjectRef;
        const text = await res.text();
        if (res.status < 500)
          throw Object.assign(new Error(`object upload refused (${res.status}): ${clipUtf8(text, 300)}`), {
            final: true,
          });
        lastError = new Error(`object upload failed (${res.status})`);
      } catch (e) {
        if ((e as { final?: boolean }).final) throw e;
        lastError = e;
      }
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
    throw lastError;
  }
}
