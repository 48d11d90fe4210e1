import http from "node:http";
import net from "node:net";

// ---- a forwarding HTTP proxy that can lose answers, and a TCP proxy that can cut ----

export interface Proxy {
  url: string;
  stats: { requests: number; forwarded: number; dropped: number; refused: number; retried: number };
  close(): Promise<void>;
}

const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/**
 * Forwards each request to the server. `plan(n, seen)` decides the fate of the n-th POST,
 * `seen` being how often this exact body came before (0 on a first try): `forward`;
 * `drop` — forward, wait for the server's whole answer (so it committed), then destroy
 * the client's socket instead of answering; or `[status, retryAfter]` — answer that status
 * at once without forwarding (so nothing was stored).
 */
export async function httpProxy(
  target: string,
  plan: (n: number, seen: number) => "forward" | "drop" | [number, string],
): Promise<Proxy> {
  const stats = { requests: 0, forwarded: 0, dropped: 0, refused: 0, retried: 0 };
  const bodies = new Map<string, number>();
  let posts = 0;
  const agent = new http.Agent({ keepAlive: true });
  const srv = http.createServer((req, res) => {
    stats.requests++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const seen = bodies.get(body) ?? 0;
      bodies.set(body, seen + 1);
      if (req.method === "POST" && seen > 0) stats.retried++;
      const fate = req.method === "POST" ? plan(++posts, seen) : "forward";
      if (Array.isArray(fate)) {
        stats.refused++;
        res.writeHead(fate[0], { "content-type": "application/problem+json", "retry-after": fate[1] });
        res.end(
          JSON.stringify({
            status: fate[0],
            code: fate[0] === 429 ? "rate_limited" : "overloaded",
            detail: "proxy says wait",
          }),
        );
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      const up = http.request(target + req.url, { method: req.method, headers, agent }, (upRes) => {
        const out: Buffer[] = [];
        upRes.on("data", (c: Buffer) => out.push(c));
        upRes.on("end", () => {
          stats.forwarded++;
          if (fate === "drop") {
            stats.dropped++;
            req.socket.destroy(); // the server committed; the client never hears of it
            return;
          }
          const body = Buffer.concat(out);
          const h: http.OutgoingHttpHeaders = {};
          for (const [k, v] of Object.entries(upRes.headers)) if (!HOP.has(k) && v !== undefined) h[k] = v;
          h["content-length"] = body.length;
          res.writeHead(upRes.statusCode!, h);
          res.end(body);
        });
      });
      up.on("error", () => req.socket.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        agent.destroy();
        srv.close(() => r());
      }),
  };
}

/** A TCP forwarder to the server that can be cut (every connection dropped, new ones refused) and restored. */
export async function tcpProxy(target: string) {
  const { hostname, port } = new URL(target);
  let open = true;
  const conns = new Set<net.Socket>();
  const srv = net.createServer((c) => {
    if (!open) return void c.destroy();
    const up = net.connect(Number(port), hostname);
    conns.add(c).add(up);
    const end = () => {
      c.destroy();
      up.destroy();
      conns.delete(c);
      conns.delete(up);
    };
    c.on("error", end).on("close", end);
    up.on("error", end).on("close", end);
    c.pipe(up).pipe(c);
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`,
    cut() {
      open = false;
      for (const s of conns) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((r) => {
        srv.close(() => r());
        for (const s of conns) s.destroy();
      }),
  };
}
