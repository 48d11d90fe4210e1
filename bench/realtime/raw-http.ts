import net from "node:net";
import { TransportError, type Reply } from "../lib/api";

/**
 * The open-loop poster's HTTP/1.1 client: keep-alive connections over `node:net`, one request
 * in flight on each (like an `http.Agent`, no pipelining), the request written as one buffer
 * and the answer framed by Content-Length or chunked encoding. It exists for its cost: Node's
 * `http.request` spent ~0.37 ms of the bench's CPU per POST (37 % of a core at 1,000/s,
 * docs/PERFORMANCE.md), on a 2-core machine taken from the server it measures. The server
 * sees the same requests either way.
 *
 * Kept over undici (Node's own fetch engine, the library we would rather use): undici 7.30.2's
 * `Pool` (`request()`, keep-alive, pipelining 1, 64 connections) beside this client in one
 * process, alternating, 5,000 POSTs at 1,000/s each against the ceiling server (2026-12-02
 * 18:47–18:52 UTC, AMD host, load 1.1 → 0.6): the bench's CPU per POST in the five rounds after
 * JIT warm-up, RawHttp 98–109 µs (median 102), undici 133–151 µs (median 145): 1.42×, against
 * the ~10 % that would have made it worth the switch. The server's CPU per POST was the same
 * (medians 122 / 122 µs). docs/PERFORMANCE.md, "undici against RawHttp".
 */
export class RawHttp {
  private idle: Conn[] = [];
  private open = 0;
  private queue: Pending[] = [];

  constructor(
    private host: string,
    private port: number,
    private maxConns: number,
  ) {}

  /** POST a JSON body; never rejects on an HTTP status, only on a transport error (a `TransportError`). */
  post(path: string, token: string, json: string): Promise<Reply> {
    const body = Buffer.from(json);
    const head =
      `POST ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\nconnection: keep-alive\r\n` +
      `content-type: application/json\r\nauthorization: Bearer ${token}\r\ncontent-length: ${body.length}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      const p: Pending = { bytes: Buffer.concat([Buffer.from(head, "latin1"), body]), resolve, reject };
      const c = this.idle.pop();
      if (c) c.send(p);
      else if (this.open < this.maxConns) this.connect().send(p);
      else this.queue.push(p);
    });
  }

  close() {
    for (const c of this.idle) c.socket.destroy();
    this.idle = [];
  }

  private connect(): Conn {
    this.open++;
    const c = new Conn(net.connect(this.port, this.host), (conn) => {
      const next = this.queue.shift();
      if (next) conn.send(next);
      else this.idle.push(conn);
    });
    c.socket.once("close", () => {
      this.open--;
      this.idle = this.idle.filter((x) => x !== c);
      const next = this.queue.shift();
      if (next) this.connect().send(next);
    });
    return c;
  }
}

interface Pending {
  bytes: Buffer;
  resolve(r: Reply): void;
  reject(e: Error): void;
}

/** One keep-alive connection: a request out, its answer parsed, then free again. */
class Conn {
  private cur: Pending | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private sent = 0;

  constructor(
    readonly socket: net.Socket,
    private free: (c: Conn) => void,
  ) {
    socket.setNoDelay(true);
    // Dropped after 4 s idle, before the server's keep-alive timeout closes it under us (bench/lib/api.ts).
    socket.setTimeout(4_000, () => !this.cur && socket.destroy());
    socket.on("data", (d: Buffer) => this.onData(d));
    socket.on("error", (e: NodeJS.ErrnoException) => this.fail(e.code ?? "", e.message));
    socket.on("close", () => this.fail("ECONNRESET", "socket hang up"));
  }

  send(p: Pending) {
    this.cur = p;
    this.sent++;
    this.socket.write(p.bytes);
  }

  private fail(code: string, message: string) {
    const p = this.cur;
    this.cur = null;
    this.socket.destroy();
    p?.reject(new TransportError(code, this.sent > 1 && this.buf.length === 0, message));
  }

  private onData(d: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    const end = this.buf.indexOf("\r\n\r\n");
    if (end < 0 || !this.cur) return;
    const head = this.buf.toString("latin1", 0, end).toLowerCase();
    const len = /\r\ncontent-length: *(\d+)/.exec(head);
    let body: Buffer | null;
    let used: number;
    if (len) {
      used = end + 4 + Number(len[1]);
      body = this.buf.length >= used ? this.buf.subarray(end + 4, used) : null;
    } else if (/\r\ntransfer-encoding: *chunked/.test(head)) [body, used] = dechunk(this.buf, end + 4);
    else return this.fail("EPROTO", `an answer without a length: ${head.slice(0, 200)}`);
    if (!body) return;
    const p = this.cur;
    const rest = this.buf.subarray(used);
    this.buf = Buffer.alloc(0);
    if (rest.length) return this.fail("EPROTO", "bytes after the answer");
    this.cur = null;
    p.resolve({ status: Number(head.slice(9, 12)), body: body.toString("utf8") });
    if (/\r\nconnection: *close/.test(head)) this.socket.destroy();
    else this.free(this);
  }
}

/** A chunked body from `at`, or null while it has not all arrived; and the bytes it took. */
function dechunk(buf: Buffer, at: number): [Buffer | null, number] {
  const parts: Buffer[] = [];
  let i = at;
  for (;;) {
    const eol = buf.indexOf("\r\n", i);
    if (eol < 0) return [null, 0];
    const n = parseInt(buf.toString("latin1", i, eol), 16);
    if (buf.length < eol + 2 + n + 2) return [null, 0];
    if (n === 0) return [Buffer.concat(parts), eol + 4];
    parts.push(buf.subarray(eol + 2, eol + 2 + n));
    i = eol + 2 + n + 2;
  }
}
