import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { problem, type IncomingEvent, type ProblemError, type StoredEvent } from "@/lib/protocol";
import type { Db } from "@/db/client";
import { agents, events, runEvents, runs, spaces, workspaces } from "@/db/schema";
import type { Credential } from "../credentials";
import { BatchState } from "./batch-state";
import { projectRun, type RunModel } from "./projection";
import { judge, stamp } from "./rules";
import { serializeEvent } from "./serialize";

/** One request: its events are stored all together or not at all ([HTTP1]). */
export interface IngestRequest {
  credential: Credential;
  events: IncomingEvent[];
  hashes: string[];
  /** JSON pointer of each event in the request body ("" or "/events/3"). */
  pointers: string[];
}

export type IngestResult =
  | { ok: true; bodies: string[]; created: boolean }
  | { ok: false; problem: ProblemError };

export interface WriterOptions {
  /** Most events one transaction takes. */
  maxBatchEvents: number;
  /** Most events waiting per workspace before `503 overloaded`. */
  maxQueueEvents: number;
  /** Called after each commit with the new events in seq order. */
  onCommit?: (workspaceId: string, committed: Committed[]) => void;
  now?: () => Date;
  /**
   * Tell other nodes of each commit: one NOTIFY per transaction (never per event — it
   * takes a global lock at commit) carrying the workspace and the seqs committed.
   */
  notify?: { channel: string; node: string };
}

/** A newly stored event as it leaves the writer: the event, its exact JSON, and its space's previous seq. */
export interface Committed {
  event: StoredEvent;
  body: string;
  prevSeq: number | null;
}

interface Pending {
  req: IngestRequest;
  resolve: (r: IngestResult) => void;
}

/**
 * One writer per workspace with group commit (DESIGN.md): requests queue; the writer takes
 * what is waiting, judges each against the store and the batch so far, bumps the counter row
 * once, inserts, projects, commits, and only then answers and emits in seq order.
 */
export class IngestWriter {
  private queues = new Map<string, { items: Pending[]; events: number; running: boolean }>();

  constructor(
    private db: Db,
    private opts: WriterOptions,
  ) {}

  submit(workspaceId: string, req: IngestRequest): Promise<IngestResult> {
    let q = this.queues.get(workspaceId);
    if (!q) this.queues.set(workspaceId, (q = { items: [], events: 0, running: false }));
    if (q.events + req.events.length > this.opts.maxQueueEvents) {
      const p = problem("overloaded", "the workspace's write queue is full; retry shortly");
      return Promise.resolve({ ok: false, problem: { ...p, retryAfter: 1 } });
    }
    return new Promise((resolve) => {
      q.items.push({ req, resolve });
      q.events += req.events.length;
      if (!q.running) void this.drain(workspaceId, q);
    });
  }

  private async drain(workspaceId: string, q: { items: Pending[]; events: number; running: boolean }) {
    q.running = true;
    try {
      while (q.items.length) {
        // Let requests already on the wire reach the queue first. PGlite runs on this thread
        // and answers without yielding to I/O, so without this turn every request would
        // commit alone; on Postgres it costs one event-loop turn.
        await new Promise<void>((r) => setImmediate(r));
        const batch: Pending[] = [];
        let n = 0;
        while (q.items.length && (batch.length === 0 || n + q.items[0].req.events.length <= this.opts.maxBatchEvents)) {
          const p = q.items.shift()!;
          n += p.req.events.length;
          batch.push(p);
        }
        q.events -= n;
        await this.commitWithRetry(workspaceId, batch);
      }
    } finally {
      q.running = false;
      if (q.items.length === 0) this.queues.delete(workspaceId);
    }
  }

  /** A failed transaction (say, an event id taken at once by another workspace) is retried, then split. */
  private async commitWithRetry(workspaceId: string, batch: Pending[]) {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return this.finish(workspaceId, batch, await this.commit(workspaceId, batch));
      } catch (e) {
        if (attempt === 1 && batch.length === 1) {
          console.error("[ingest] transaction failed", e);
          batch[0].resolve({ ok: false, problem: problem("internal", "the event could not be stored; retry with the same idempotency key") });
          return;
        }
      }
    }
    for (const p of batch) await this.commitWithRetry(workspaceId, [p]);
  }

  private finish(workspaceId: string, batch: Pending[], out: { results: IngestResult[]; committed: Committed[] }) {
    batch.forEach((p, i) => p.resolve(out.results[i]));
    if (out.committed.length && this.opts.onCommit) {
      try {
        this.opts.onCommit(workspaceId, out.committed);
      } catch (e) {
        console.error("[ingest] onCommit failed", e);
      }
    }
  }

  private async commit(workspaceId: string, batch: Pending[]) {
    return this.db.transaction(async (tx) => {
      const [ws] = await tx.select({ seqHead: workspaces.seqHead }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("update");
      if (!ws) {
        const p = problem("forbidden", "the workspace of this credential no longer exists");
        return { results: batch.map(() => ({ ok: false as const, problem: p })), committed: [] };
      }
      const state = new BatchState(ws.seqHead);
      await load(tx as unknown as Db, workspaceId, batch, state);

      const ts = (this.opts.now?.() ?? new Date()).toISOString();
      const results: IngestResult[] = [];
      const committed: Committed[] = [];
      const touchedRuns = new Map<string, RunModel>();
      const newAgents = new Map<string, string>();
      for (const { req } of batch) {
        state.beginRequest();
        const mine: { e: StoredEvent; body: string; prevSeq: number | null }[] = [];
        const answer: string[] = [];
        let refused: ProblemError | null = null;
        for (let i = 0; i < req.events.length && !refused; i++) {
          const v = judge(state, req.credential, req.events[i], req.hashes[i], req.pointers[i]);
          if (v.kind === "refuse") refused = v.problem;
          else if (v.kind === "replay") answer.push(v.body);
          else {
            const ev = v.event;
            let owner: string | undefined;
            if (ev.actor?.kind === "agent") {
              owner = state.agents.get(ev.actor.id) ?? req.credential.subjectId;
              if (!state.agents.has(ev.actor.id)) state.set(state.agents, ev.actor.id, owner);
            }
            const e = stamp(ev, req.credential, state.nextSeq(), ts, owner);
            const body = serializeEvent(e);
            const known = { hash: req.hashes[i], body, workspaceId };
            if (e.idempotency_key) state.set(state.byKey, e.idempotency_key, known);
            if (e.type === "runner.event") state.set(state.byRunnerSeq, `${e.run_id}:${e.sequence}`, known);
            state.set(state.byId, e.id, known);
            if (e.run_id) {
              const harness = req.credential.kind === "person" ? null : req.credential.subjectId;
              const next = projectRun(v.run, e, v.run?.harnessId ?? harness);
              if (next) state.set(state.runs, e.run_id, next);
            }
            let prevSeq: number | null = null;
            if (e.space_id) {
              prevSeq = state.spaceHeads.get(e.space_id)!;
              state.set(state.spaceHeads, e.space_id, e.seq);
            }
            mine.push({ e, body, prevSeq });
            answer.push(body);
          }
        }
        if (refused) {
          state.rollbackRequest();
          results.push({ ok: false, problem: refused });
          continue;
        }
        state.commitRequest();
        for (const m of mine) {
          committed.push({ event: m.e, body: m.body, prevSeq: m.prevSeq });
          if (m.e.run_id) touchedRuns.set(m.e.run_id, state.runs.get(m.e.run_id)!);
          if (m.e.actor.kind === "agent") newAgents.set(m.e.actor.id, m.e.actor.harness_id!);
        }
        results.push({ ok: true, bodies: answer, created: mine.length > 0 });
      }
      if (committed.length) {
        await write(tx as unknown as Db, workspaceId, state, committed, touchedRuns, newAgents, batch);
        if (this.opts.notify) {
          const payload = JSON.stringify({ n: this.opts.notify.node, w: workspaceId, f: committed[0].event.seq - 1, t: state.seq });
          await tx.execute(sql`select pg_notify(${this.opts.notify.channel}, ${payload})`);
        }
      }
      return { results, committed };
    });
  }
}

/** Read, for the whole batch at once, what the rules need to know of the store. */
async function load(tx: Db, workspaceId: string, batch: Pending[], s: BatchState) {
  const all = batch.flatMap((p) => p.req.events);
  const keys = uniq(all.map((e) => e.idempotency_key).filter((k): k is string => !!k));
  const ids = uniq(all.map((e) => e.id));
  const runIds = uniq(all.map((e) => e.run_id).filter((r): r is string => !!r));
  const spaceIds = uniq(all.map((e) => e.space_id).filter((r): r is string => !!r));
  const agentIds = uniq(all.map((e) => (e.actor?.kind === "agent" ? e.actor.id : null)).filter((r): r is string => !!r));
  const runnerSeqs = all.filter((e) => e.type === "runner.event") as Extract<IncomingEvent, { type: "runner.event" }>[];

  const known = (r: { hash: string; body: string; workspaceId: string }) => ({ hash: r.hash, body: r.body, workspaceId: r.workspaceId });
  const cols = { hash: events.bodyHash, body: events.body, workspaceId: events.workspaceId, key: events.idempotencyKey, id: events.id };
  const [byKey, byId, runRows, agentRows] = await Promise.all([
    keys.length ? tx.select(cols).from(events).where(and(eq(events.workspaceId, workspaceId), inArray(events.idempotencyKey, keys))) : [],
    tx.select(cols).from(events).where(inArray(events.id, ids)),
    runIds.length ? tx.select().from(runs).where(inArray(runs.id, runIds)) : [],
    agentIds.length
      ? tx.select({ id: agents.id, harnessId: agents.harnessId }).from(agents).where(and(eq(agents.workspaceId, workspaceId), inArray(agents.id, agentIds)))
      : [],
  ]);
  for (const r of byKey) s.byKey.set(r.key!, known(r));
  for (const r of byId) s.byId.set(r.id, known(r));
  for (const r of runRows) {
    if (r.workspaceId === workspaceId) s.runs.set(r.id, r);
    else s.foreignRuns.add(r.id);
  }
  // The spaces named, and those of the runs named (run events may leave space_id out).
  const allSpaces = uniq([...spaceIds, ...runRows.filter((r) => r.workspaceId === workspaceId).map((r) => r.spaceId)]);
  const spaceRows = allSpaces.length
    ? await tx
        .select({ id: spaces.id, head: spaces.seqHead })
        .from(spaces)
        .where(and(eq(spaces.workspaceId, workspaceId), inArray(spaces.id, allSpaces)))
    : [];
  for (const r of spaceRows) s.spaceHeads.set(r.id, r.head);
  for (const r of agentRows) s.agents.set(r.id, r.harnessId);
  if (runnerSeqs.length) {
    const rows = await tx
      .select({ runId: runEvents.runId, sequence: runEvents.sequence, hash: events.bodyHash, body: events.body, workspaceId: events.workspaceId })
      .from(runEvents)
      .innerJoin(events, eq(events.id, runEvents.eventId))
      .where(
        sql`(${runEvents.runId}, ${runEvents.sequence}) in (${sql.join(
          runnerSeqs.map((e) => sql`(${e.run_id!}, ${e.sequence})`),
          sql`, `,
        )})`,
      );
    for (const r of rows) s.byRunnerSeq.set(`${r.runId}:${r.sequence}`, known(r));
  }
}

async function write(
  tx: Db,
  workspaceId: string,
  state: BatchState,
  committed: Committed[],
  touchedRuns: Map<string, RunModel>,
  newAgents: Map<string, string>,
  batch: Pending[],
) {
  const hashes = new Map<string, string>();
  for (const { req } of batch) req.events.forEach((e, i) => hashes.set(e.id, req.hashes[i]));
  await tx.insert(events).values(
    committed.map(({ event: e, body, prevSeq }) => ({
      workspaceId,
      seq: e.seq,
      id: e.id,
      type: e.type,
      spaceId: e.space_id ?? null,
      prevSeq,
      runId: e.run_id ?? null,
      idempotencyKey: e.idempotency_key ?? null,
      bodyHash: hashes.get(e.id)!,
      body,
      ts: e.ts,
    })),
  );
  await tx.update(workspaces).set({ seqHead: state.seq }).where(eq(workspaces.id, workspaceId));
  for (const space of uniq(committed.map((c) => c.event.space_id).filter((x): x is string => !!x))) {
    await tx.update(spaces).set({ seqHead: state.spaceHeads.get(space)! }).where(eq(spaces.id, space));
  }
  const stored = committed.map((c) => c.event);
  if (touchedRuns.size) {
    const rows = [...touchedRuns.values()];
    await tx
      .insert(runs)
      .values(rows)
      .onConflictDoUpdate({
        target: runs.id,
        set: RUN_UPSERT_SET,
      });
  }
  const runnerRows = stored.filter((e) => e.type === "runner.event") as Extract<StoredEvent, { type: "runner.event" }>[];
  if (runnerRows.length) {
    await tx.insert(runEvents).values(
      runnerRows.map((e) => ({
        runId: e.run_id!,
        sequence: e.sequence,
        workspaceId,
        eventId: e.id,
        kind: e.kind,
        message: e.message,
        payload: e.payload ?? null,
        occurredAt: e.occurred_at,
      })),
    );
  }
  if (newAgents.size) {
    await tx
      .insert(agents)
      .values([...newAgents].map(([id, harnessId]) => ({ workspaceId, id, harnessId })))
      .onConflictDoNothing();
  }
}

/** Every column but the key takes the new row's value. */
const RUN_UPSERT_SET = Object.fromEntries(
  Object.entries(getTableColumns(runs))
    .filter(([k]) => k !== "id")
    .map(([k, c]) => [k, sql.raw(`excluded."${c.name}"`)]),
);

const uniq = <T>(xs: T[]) => [...new Set(xs)];
