import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/db/client";
import type { ChipsConfig } from "@/lib/server/env";
import { createApi } from "./api/app";
import { bootstrap, type BootInfo } from "./bootstrap";
import { createServices, type ChipsServices } from "./services";
import { autoStarter } from "./tasks/auto-start";
import { handleLoginLink } from "./login-route";
import { handleInvite } from "./invite-route";
import { attachRealtime } from "./realtime/attach";
import { QuietSweep } from "./otel/quiet";
import { OtlpExporter } from "./otel/exporter";
import { API_CSP, baseHeaders, decodablePath, PEER_HEADER, pageHeaders, requestId } from "./http-policy";
import { log, safePath } from "./log";
import { HttpDrain } from "./shutdown";
import { startAskExpiry } from "./asks";
import { WebhookSender } from "./webhooks/sender";
import { webhookEnqueuer } from "./webhooks/hooks";

export interface RunningChips {
  url: string;
  port: number;
  services: ChipsServices;
  boot: BootInfo;
  server: http.Server;
  /** Socket.IO (rooms and /harness). */
  io: import("socket.io").Server;
  /**
   * Stop taking work, at once ([OPS4]): readiness answers 503, the listener closes, idle
   * kept-alive connections close and the others after their current answer, new requests get
   * 503. `close()` begins with it; a signal handler calls it first to log after it.
   */
  stopTakingWork(): void;
  /** Stop: the above, then sockets, requests in flight (within the shutdown bound), writer, database. */
  close(): Promise<void>;
  /** What stopping still waits on (for the log when the bound runs out). */
  stillOpen(): { step: string; requests: string[]; sockets: number };
}

const API_PREFIXES = ["/api/", "/schemas", "/objects/", "/v1/"];

/**
 * Open the database (migrations run there), bootstrap, and serve: the HTTP API on our own
 * router, pages through Next.js when `config.web` is on, on one port.
 */
export async function startChips(config: ChipsConfig): Promise<RunningChips> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.pgPoolSize,
  });
  try {
    // Fresh statistics for the room queries' plans (the dedupe by key does not depend on them: db/ingest-sql.ts).
    if (database.kind === "postgres") await database.query(sql`analyze events`);
    const boot = await bootstrap(database.db, config.dataDir);
    const services = createServices(config, database);
    // A task set to start by itself (auto_start) starts when its prerequisites' runs succeed.
    services.commits.subscribe("task-auto-start", autoStarter(services));
    // Every finished run out as GenAI spans, when an OTLP receiver is configured (docs/OTEL.md [OTL8]).
    const exporter = config.otlpExportUrl
      ? new OtlpExporter(services, config.otlpExportUrl, config.otlpExportHeaders)
      : null;
    if (exporter) {
      services.commits.subscribe("otlp-export", exporter.committed);
      exporter.start();
    }
    // Runs made from telemetry finish when it goes quiet (docs/OTEL.md [OTL4]).
    const quiet = new QuietSweep(services, config.otlpQuietSeconds);
    quiet.start();
    const apiListener = getRequestListener(createApi(services).fetch);

    type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
    type UpgradeHandler = (
      req: http.IncomingMessage,
      socket: import("node:stream").Duplex,
      head: Buffer,
    ) => Promise<void>;
    let web: Handler | null = null;
    let webUpgrade: UpgradeHandler | null = null;
    let nextApp: { close?: () => Promise<void> } | null = null;
    if (config.web) {
      const { default: next } = await import("next");
      const app = next({
        dev: config.dev,
        dir: path.resolve(import.meta.dirname, "../.."),
        hostname: "localhost",
        port: config.port,
      });
      await app.prepare();
      web = app.getRequestHandler();
      webUpgrade = app.getUpgradeHandler();
      nextApp = app;
    }

    const pages = async (req: http.IncomingMessage, res: http.ServerResponse, address: string | undefined) => {
      if (!decodablePath(req.url ?? "/")) {
        res
          .writeHead(400, { "content-type": "text/plain; charset=utf-8" })
          .end("This address is not valid percent-encoding.");
        return;
      }
      if (await handleLoginLink(services, req, res, address)) return;
      if (await handleInvite(services, req, res, address)) return;
      if (web) return web(req, res);
      res.writeHead(404, { "content-type": "text/plain" }).end("This Chips server serves the API only (CHIPS_WEB=0).");
    };
    const headers = Object.entries(baseHeaders(config.publicUrl));
    const drain = new HttpDrain();
    const server = http.createServer((req, res) => {
      const url = req.url ?? "/";
      const id = requestId(req, res);
      // Read now (the socket may be gone by the answer's end), resolved only where it is used.
      const peer = req.socket.remoteAddress;
      const addressOf = () => services.clientAddress(peer, req.headers["x-forwarded-for"]);
      for (const [k, v] of headers) res.setHeader(k, v);
      const started = performance.now();
      res.once("finish", () => {
        const failed = res.statusCode >= 500;
        if (!failed && !log.isLevelEnabled("debug")) return;
        const line = {
          requestId: id,
          address: addressOf(),
          method: req.method,
          path: safePath(url),
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
        };
        if (failed) log.warn(line, "request failed");
        else log.debug(line, "request");
      });
      const api = API_PREFIXES.some((p) => url.startsWith(p));
      if (api) res.setHeader("content-security-policy", API_CSP);
      if (drain.admit(req, res, api)) return; // shutting down: 503
      if (api) return void apiListener(req, res);
      const address = addressOf();
      pageHeaders(req, res, config.dev);
      // Where a page request came from, for pages that log it (a share link's opens); always ours, never the client's.
      req.headers[PEER_HEADER] = address ?? "";
      pages(req, res, address).catch((e) => {
        const gone = services.storage.refuse(e, "page") === "unavailable";
        if (!res.headersSent)
          res.writeHead(gone ? 503 : 500, { "content-type": "text/plain", ...(gone ? { "retry-after": "2" } : {}) });
        res.end(gone ? "Chips cannot reach its storage right now; try again in a moment." : "Internal server error");
      });
    });
    const realtime = attachRealtime(server, services);
    const stopAskExpiry = startAskExpiry(services);
    // [ASK7] new asks go to the workspace's webhooks: enqueued after each commit here, sent (and retried) by every node.
    const webhookSender = new WebhookSender(services);
    const stopWebhooks = webhookSender.start();
    services.commits.subscribe("ask-webhooks", webhookEnqueuer(services, webhookSender));
    // Pages (Next.js server components) read through the same services: one instance,
    // handed over through globalThis because Next bundles its own module graph.
    (globalThis as { __chips?: ChipsServices }).__chips = services;
    // Upgrades are routed here, not left to whichever library listens first (Next's hot reload).
    server.on("upgrade", (req, socket, head) => {
      if ((req.url ?? "").startsWith("/socket.io")) return; // Socket.IO's own listener takes these
      if (webUpgrade) void webUpgrade(req, socket, head);
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    services.idle.start();
    let step = "serving";
    const stopTakingWork = () => {
      if (services.stopping) return;
      services.stopping = true;
      drain.begin(server);
    };
    /** Resolves true when `p` settled within `ms`, false when it did not. */
    const within = (p: Promise<unknown>, ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        p.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.max(0, ms))).unref()),
      ]).finally(() => clearTimeout(timer));
    };
    const shutDown = async () => {
      const end = performance.now() + config.shutdownTimeoutSeconds * 1000;
      // What closing the rest (Next, the review index, the database) may take of the bound.
      const reserve = Math.min(3000, (config.shutdownTimeoutSeconds * 1000) / 2);
      step = "closing sockets, finishing requests in flight";
      services.storage.close();
      services.idle.stop();
      stopAskExpiry();
      stopWebhooks();
      const [, settled] = await Promise.all([realtime.close(), drain.settled(end - reserve - performance.now())]);
      if (!settled)
        log.warn(
          { requests: drain.inFlight() },
          "shutting down: requests still in flight at the bound; closing their connections",
        );
      step = "closing connections";
      server.closeAllConnections();
      const closed = new Promise<void>((r) => server.close(() => r()));
      if (!(await within(closed, end - reserve / 2 - performance.now())))
        log.warn("shutting down: connections (WebSockets) still open; going on without them");
      step = "closing Next.js";
      await nextApp?.close?.().catch(() => {});
      // No request can queue events now; what is queued is written before the database closes.
      step = "writing what is queued";
      if (!(await within(services.writer.idle(), end - performance.now())))
        log.warn("shutting down: the ingest writer still had a transaction going at the bound");
      step = "telling other nodes of the last commits";
      await services.nodeNotices?.idle();
      // No request or commit can start a round now; wait for the rounds under way.
      step = "finishing the review index";
      await services.review.close();
      step = "finishing the telemetry sweep";
      await quiet.close();
      step = "finishing the OTLP export in flight";
      await exporter?.close();
      step = "closing the database";
      await database.close();
      step = "closed";
    };
    let closing: Promise<void> | null = null;
    return {
      url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`,
      port,
      services,
      boot,
      server,
      io: realtime.io,
      stopTakingWork,
      close() {
        stopTakingWork();
        return (closing ??= shutDown());
      },
      stillOpen: () => ({ step, requests: drain.inFlight(), sockets: realtime.io.engine.clientsCount }),
    };
  } catch (e) {
    await database.close().catch(() => {});
    throw e;
  }
}
