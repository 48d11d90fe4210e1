import { Worker } from "node:worker_threads";

interface Result {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

interface Pending {
  resolve: (r: Result) => void;
  reject: (e: Error) => void;
}

type Query = (text: string, params?: unknown[], options?: { rowMode?: "array" | "object" }) => Promise<Result>;

/** A PGlite error as the worker reported it: its message with its code, detail, constraint… */
const asError = (data: Record<string, unknown>) => Object.assign(new Error(String(data.message)), data);

/**
 * The embedded database in a worker thread this process owns (db/pglite-worker.mjs): the
 * slice of PGlite's interface drizzle-orm/pglite and the fixed statements use (`query`,
 * `transaction`). Statements are sent in order and answered in order. While a
 * transaction is open, other statements wait for its end: PGlite has one session, so a
 * statement sent then would run inside it. If the worker dies, what was waiting fails with
 * CONNECTION_CLOSED (the database went away: 503 and retry, lib/server/storage.ts) and the
 * next statement starts a new worker on the same directory; this process keeps its lock.
 */
export class PgliteWorkerClient {
  private worker: Worker | null = null;
  private starting: Promise<Worker> | null = null;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** Settles when the open transaction ends; null when none is open. */
  private txOpen: Promise<void> | null = null;
  private txTail: Promise<void> = Promise.resolve();

  private constructor(private dataDir: string) {}

  static async open(dataDir: string): Promise<PgliteWorkerClient> {
    const c = new PgliteWorkerClient(dataDir);
    await c.start();
    return c;
  }

  private start(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.starting ??= new Promise<Worker>((resolve, reject) => {
      const w = new Worker(new URL("./pglite-worker.mjs", import.meta.url), {
        workerData: { dataDir: this.dataDir },
        execArgv: [],
      });
      const onFirst = (m: { ready?: boolean; error?: Record<string, unknown> }) => {
        if (m.ready) {
          w.on("message", (r) => this.answer(r));
          this.worker = w;
          resolve(w);
        } else reject(asError(m.error ?? { message: "PGlite did not start" }));
      };
      w.once("message", onFirst);
      w.once("error", (e) => reject(e));
      w.once("exit", (code) => this.exited(w, code));
    }).finally(() => (this.starting = null));
    return this.starting;
  }

  private answer(m: { id: number; error?: Record<string, unknown> } & Result) {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.error) p.reject(asError(m.error));
    else p.resolve(m);
  }

  private exited(w: Worker, code: number) {
    if (this.worker !== w && this.worker !== null) return;
    this.worker = null;
    if (this.closed) return;
    const gone = Object.assign(new Error(`the PGlite worker exited (code ${code})`), { code: "CONNECTION_CLOSED" });
    for (const p of this.pending.values()) p.reject(gone);
    this.pending.clear();
  }

  /**
   * Post one statement now (so order of calls is order of execution). `named`: a fixed
   * statement, run through a prepared statement the worker keeps (db/pglite-worker.mjs).
   */
  private send(
    text: string,
    params: unknown[] = [],
    how: { rowMode?: "array" | "object"; named?: boolean; close?: boolean } = {},
  ): Promise<Result> {
    if (this.closed && !how.close)
      return Promise.reject(Object.assign(new Error("the database is closed"), { code: "CONNECTION_ENDED" }));
    const id = this.nextId++;
    const answer = new Promise<Result>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    const message = how.close ? { id, close: true } : { id, text, params, rowMode: how.rowMode, named: how.named };
    if (this.worker) this.worker.postMessage(message);
    else
      void this.start().then(
        (w) => w.postMessage(message),
        (e: Error) =>
          this.answer({ id, error: { message: e.message, code: "CONNECTION_CLOSED" }, rows: [], fields: [] }),
      );
    return answer;
  }

  query: Query = async (text, params, options) => {
    while (this.txOpen) await this.txOpen;
    return this.send(text, params, { rowMode: options?.rowMode });
  };

  /** A fixed statement (db/client.ts `run`): parsed once by the worker, then only bound and executed. */
  run = async (text: string, params?: unknown[]): Promise<Result> => {
    while (this.txOpen) await this.txOpen;
    return this.send(text, params, { named: true });
  };

  /** drizzle-orm/pglite's and `transact`'s transaction: BEGIN, the work, COMMIT or ROLLBACK. */
  async transaction<T>(
    work: (tx: { query: Query; run: (text: string, params?: unknown[]) => Promise<Result> }) => Promise<T>,
  ): Promise<T> {
    const before = this.txTail;
    let done!: () => void;
    this.txTail = new Promise<void>((r) => (done = r));
    await before;
    while (this.txOpen) await this.txOpen;
    let end!: () => void;
    this.txOpen = new Promise<void>((r) => (end = r));
    try {
      await this.send("begin");
      const out = await work({
        query: (text, params, options) => this.send(text, params, { rowMode: options?.rowMode }),
        run: (text, params) => this.send(text, params, { named: true }),
      });
      await this.send("commit");
      return out;
    } catch (e) {
      await this.send("rollback").catch(() => {});
      throw e;
    } finally {
      this.txOpen = null;
      end();
      done();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const w = this.worker;
    if (!w) return;
    await this.send("", [], { close: true }).catch(() => {});
    await w.terminate();
  }
}
