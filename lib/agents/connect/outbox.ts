import fs from "node:fs";
import path from "node:path";
import { isChipsError, type ChipsClient } from "@/lib/agents/sdk";
import { prepareEvent, type EnvelopeDefaults } from "@/lib/agents/sdk/prepare";
import type { EventInput, PreparedEvent } from "@/lib/agents/sdk/types";
import { privateDir, writeAtomic } from "./home";

/**
 * A durable, ordered way out to Chips for one source (a Claude Code session, a Codex
 * rollout): its own state and the events it still owes, in one file, rewritten whole
 * (temp file + fsync + rename) after every change. Events get their envelope — `evt_` id
 * and idempotency key — when queued, before anything is sent, so a send repeated after a
 * crash or an outage is answered by the server as the same stored event: each arrives
 * once, in the order queued.
 */
export interface Durable<S> {
  state: S;
  outbox: PreparedEvent[];
}

export class DurableStore<S> {
  constructor(
    private dir: string,
    private defaults: EnvelopeDefaults,
  ) {
    privateDir(dir);
  }

  private file(key: string) {
    return path.join(this.dir, `${key.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  }

  load(key: string): Durable<S> | null {
    try {
      return JSON.parse(fs.readFileSync(this.file(key), "utf8")) as Durable<S>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
  }

  save(key: string, d: Durable<S>): void {
    writeAtomic(this.file(key), JSON.stringify(d));
  }

  keys(): string[] {
    return fs
      .readdirSync(this.dir)
      .filter((n) => n.endsWith(".json"))
      .map((n) => n.slice(0, -5));
  }

  /** Fill in the envelope of events about to be queued (ids and keys fixed from now on). */
  prepare(events: EventInput[]): PreparedEvent[] {
    return events.map((e) => prepareEvent(e, this.defaults));
  }
}

/** What became of one send. */
export type SendResult = { sent: number } | { waiting: string };

/**
 * Send one source's outbox, oldest first, in batches (each all-or-nothing). An answer
 * that a retry could change (no answer, 5xx, 429, 503) stops the send: the events stay,
 * and go again later with the same ids and keys. An event the server refuses for good
 * (a 4xx: its run finished meanwhile…) is dropped with a log line, never retried forever —
 * a batch refused is sent again one by one to find it.
 */
export async function sendOutbox<S>(
  client: ChipsClient,
  store: DurableStore<S>,
  key: string,
  log: (line: string) => void,
  batch = 100,
): Promise<SendResult> {
  let sent = 0;
  for (;;) {
    const d = store.load(key);
    if (!d || d.outbox.length === 0) return { sent };
    const size = d.outbox.length === 1 ? 1 : Math.min(batch, d.outbox.length);
    const part = d.outbox.slice(0, size);
    try {
      await client.sendAtomic(part);
    } catch (e) {
      if (!isChipsError(e) || e.retryable || e.code === "unauthorized")
        return { waiting: isChipsError(e) ? `${e.code}: ${e.detail}` : String(e) };
      if (size > 1) {
        batch = 1; // find the one refused
        continue;
      }
      log(`dropped ${part[0].type} (${part[0].idempotency_key}): ${e.code}: ${e.detail}`);
    }
    // Saved per batch, not once at the end: a batch the server took leaves the file before the
    // next goes, so a crash or an outage mid-send never sends more than one batch again.
    const now = store.load(key)!;
    // The outbox may have grown meanwhile; what was sent is still at its head.
    now.outbox = now.outbox.slice(size);
    store.save(key, now);
    sent += size;
  }
}
