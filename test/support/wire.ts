import net from "node:net";

/** One HTTP/1.1 answer read off the wire. */
export interface WireAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  json: any;
}

/**
 * One kept-alive HTTP/1.1 connection driven byte by byte, for what `fetch` and `http.Agent`
 * hide: which connection a request goes on, a request whose headers or body are only partly
 * sent, `100 Continue`, and whether the server closed the connection. Answers are framed by
 * Content-Length or chunked encoding.
 */
export class Wire {
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  /** Whether the server ended or reset the connection. */
  closed = false;
  readonly ended: Promise<void>;

  private constructor(private socket: net.Socket) {
    socket.on("data", (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.wake();
    });
    this.ended = new Promise((resolve) =>
      socket.once("close", () => {
        this.closed = true;
        this.wake();
        resolve();
      }),
    );
    socket.on("error", () => {}); // a reset shows as `closed`
  }

  static open(url: string): Promise<Wire> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = net.connect(Number(u.port), u.hostname, () => resolve(new Wire(s)));
      s.once("error", reject);
    });
  }

  /** Write raw bytes (false when the connection is gone). */
  write(bytes: string | Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    this.socket.write(bytes);
    return true;
  }

  /** A whole request, then its answer. */
  async request(head: string, body = ""): Promise<WireAnswer | "closed"> {
    this.write(head + body);
    return this.answer();
  }

  /** The next answer on the connection, or "closed" when the server closed it first. */
  async answer(): Promise<WireAnswer | "closed"> {
    for (;;) {
      const a = this.parse();
      if (a) return a;
      if (this.closed) return "closed";
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Wait for an interim `100 Continue` (the server has taken the request's head). */
  async continued(): Promise<boolean> {
    for (;;) {
      const at = this.buf.indexOf("\r\n\r\n");
      if (at >= 0) {
        const line = this.buf.subarray(0, at).toString("latin1");
        if (!line.startsWith("HTTP/1.1 100")) return false;
        this.buf = this.buf.subarray(at + 4);
        return true;
      }
      if (this.closed) return false;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  destroy() {
    this.socket.destroy();
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** A complete answer at the head of the buffer (taken off it), or null. */
  private parse(): WireAnswer | null {
    const end = this.buf.indexOf("\r\n\r\n");
    if (end < 0) return null;
    const [statusLine, ...lines] = this.buf.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number(statusLine.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(":");
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    let at = end + 4;
    let body: Buffer;
    if (headers["transfer-encoding"]?.includes("chunked")) {
      const parts: Buffer[] = [];
      for (;;) {
        const eol = this.buf.indexOf("\r\n", at);
        if (eol < 0) return null;
        const size = parseInt(this.buf.subarray(at, eol).toString("latin1"), 16);
        if (this.buf.length < eol + 2 + size + 2) return null;
        parts.push(this.buf.subarray(eol + 2, eol + 2 + size));
        at = eol + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const n = Number(headers["content-length"] ?? 0);
      if (this.buf.length < at + n) return null;
      body = this.buf.subarray(at, at + n);
      at += n;
    }
    this.buf = this.buf.subarray(at);
    const text = body.toString("utf8");
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status, headers, body: text, json };
  }
}
