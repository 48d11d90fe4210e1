import type http from "node:http";
import { problem, problemBody } from "@/lib/core/protocol";
import { safePath } from "./log";

/** What still answers while a server stops: the load balancer's checks (readiness says 503 itself). */
const WHILE_STOPPING = ["/api/v1/health"];

/**
 * The HTTP side of stopping a server (docs/OPERATIONS.md "Stopping", [OPS4]). A load balancer
 * keeps its connections to a node alive, and Node's `server.close()` only stops the listener
 * and closes the connections idle at that moment: a connection with a request in flight, or
 * one whose next request had begun, stayed open and went on being answered as if nothing
 * happened — readiness said 200 for as long as the balancer kept asking. Once `begin()` runs,
 * every answer carries `Connection: close` (so each connection closes after its current
 * answer), requests that arrive anyway get 503 (all but the health checks), and `settled()`
 * says when the requests in flight are done.
 */
export class HttpDrain {
  private open = new Map<http.ServerResponse, string>();
  private waiters = new Set<() => void>();
  stopping = false;

  /**
   * Every request, before it is handled: answers true when it was refused (the server is
   * stopping and this is new work), else tracks it until its answer is done.
   */
  admit(req: http.IncomingMessage, res: http.ServerResponse, api: boolean): boolean {
    if (this.stopping) {
      res.setHeader("connection", "close");
      const url = req.url ?? "/";
      if (!WHILE_STOPPING.some((p) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`))) {
        refuse(res, api);
        return true;
      }
    }
    this.open.set(res, `${req.method} ${safePath(req.url)}`);
    res.once("close", () => {
      this.open.delete(res);
      if (!this.open.size) for (const w of this.waiters) w();
    });
    return false;
  }

  /** Stop taking work: stop listening, close idle connections, and close the others after their current answer. */
  begin(server: http.Server) {
    if (this.stopping) return;
    this.stopping = true;
    for (const res of this.open.keys()) if (!res.headersSent) res.setHeader("connection", "close");
    // Stops the listener and closes the connections with no request going; the rest close
    // after their answer (Connection: close) or when `closeAllConnections` ends them.
    server.close();
  }

  /** Resolves true when no request is in flight, false if some still are after `ms`. */
  settled(ms: number): Promise<boolean> {
    if (!this.open.size) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(onEmpty);
        resolve(ok);
      };
      const onEmpty = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(onEmpty);
    });
  }

  /** The requests in flight, as "METHOD path" (for the log when they outlast the bound). */
  inFlight(): string[] {
    return [...this.open.values()];
  }
}

/** 503 for work that arrived on an open connection after the server began stopping. */
function refuse(res: http.ServerResponse, api: boolean) {
  const detail = "this server is shutting down; nothing was stored — retry, another node will answer";
  if (!api) {
    res.writeHead(503, { "content-type": "text/plain", "retry-after": "2" }).end(detail);
    return;
  }
  res
    .writeHead(503, { "content-type": "application/problem+json", "retry-after": "2" })
    .end(JSON.stringify(problemBody(problem("unavailable", detail))));
}
