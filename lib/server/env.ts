import path from "node:path";
import { parseTrustedProxies } from "./client-address";

/** Everything the server reads from its environment, read in one place. */
export interface ChipsConfig {
  port: number;
  host: string;
  /** The base URL people open; links printed and handed out start with it. */
  publicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  /** Serve pages through Next.js; off for API-only servers (tests, benchmarks). */
  web: boolean;
  dev: boolean;
  /** Per-credential event rate, events/s (0 = unlimited), and its burst. */
  rateLimit: number;
  rateBurst: number;
  /** Events one ingest transaction takes, and events queued per workspace before 503. */
  maxBatchEvents: number;
  maxQueueEvents: number;
  pgPoolSize: number;
  /** Print the first-start banner. */
  banner: boolean;
  /** A run's typing indicator goes when no status came for this long ([UI2]). */
  statusTtlSeconds: number;
  /** A harness disconnected longer than this is shown unresponsive ([RUN1]). */
  presenceGraceSeconds: number;
  /** A runner's lease on a run lasts this long unless renewed; a lapsed lease fails the run (§5). */
  leaseTtlSeconds: number;
  /** Signed object URLs expire after this long ([RN3]). */
  objectUrlTtlSeconds: number;
  /** Largest object a runner may upload, bytes. */
  maxObjectBytes: number;
  /** Failed sign-in attempts (bad token, cookie, login link, invite) per client address a minute; 0 = no limit. */
  authAttemptsPerMinute: number;
  /**
   * The proxies in front whose `X-Forwarded-For` names the client (CHIPS_TRUSTED_PROXIES): "" for
   * none, a hop count ("1"), or addresses and CIDR networks ("127.0.0.1/32,10.0.0.0/8") —
   * lib/server/client-address.ts.
   */
  trustedProxies: string;
  /**
   * A socket with more than this many bytes of events waiting on the server (it stopped
   * reading) is dropped to catch-up: it reconnects and reads what it missed from the store.
   */
  socketMaxBufferedBytes: number;
  /**
   * Socket.IO's heartbeat: the server pings every socket this often and drops one that has not
   * answered within the timeout after it — how soon a vanished browser or harness is noticed.
   */
  socketPingIntervalSeconds: number;
  socketPingTimeoutSeconds: number;
  /**
   * On PostgreSQL, how often a node re-reads the seq heads of the workspaces it fans out
   * for: a commit whose notice never came (its node died between the commit and the notice,
   * or the notice's statement failed) reaches this node's rooms within it; 0 never.
   */
  headsSweepSeconds: number;
  /**
   * From a SIGTERM or SIGINT to the process's exit, at most ([OPS4]): requests in flight get
   * what is left after a reserve for closing the rest, and the process exits when it runs out
   * whatever is still open.
   */
  shutdownTimeoutSeconds: number;
  /**
   * A workspace with no request, commit or socket on this node for this long has what the
   * node kept for it between requests released ([SCL1]); 0 keeps everything.
   */
  workspaceIdleSeconds: number;
  /**
   * A secret every node shares (CHIPS_SECRET): the lease signing key and the object-URL key
   * are derived from it, so any node verifies what another signed. Unset: key files in the data dir.
   */
  secret?: string;
  /**
   * A run made from an agent's telemetry finishes after this long without any (CHIPS_OTLP_QUIET_SECONDS):
   * Claude Code's and Codex's logs never say that a session ended (docs/OTEL.md [OTL4]).
   */
  otlpQuietSeconds: number;
  /** Send every finished run as GenAI spans to this OTLP/HTTP traces URL (CHIPS_OTLP_EXPORT_URL); unset: none. */
  otlpExportUrl?: string;
  /** Headers for it, `k=v,k2=v2` as OTEL_EXPORTER_OTLP_HEADERS (CHIPS_OTLP_EXPORT_HEADERS). */
  otlpExportHeaders: string;
  /** [ASK7] A webhook delivery that failed is tried again after this long, doubling each time (at most 10 min). */
  webhookRetryMs: number;
  /** [ASK7] Attempts per webhook delivery before it is logged failed. */
  webhookAttempts: number;
}

const num = (v: string | undefined, d: number) => (v === undefined || v === "" ? d : Number(v));

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ChipsConfig> = {}): ChipsConfig {
  const port = overrides.port ?? num(env.PORT, 3000);
  const cfg: ChipsConfig = {
    port,
    host: env.HOST || "127.0.0.1",
    publicUrl: (env.CHIPS_PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ""),
    dataDir: path.resolve(env.CHIPS_DATA_DIR || ".chips"),
    databaseUrl: env.DATABASE_URL || undefined,
    web: env.CHIPS_WEB !== "0",
    dev: env.NODE_ENV === "development",
    rateLimit: num(env.CHIPS_RATE_LIMIT, 5000),
    rateBurst: num(env.CHIPS_RATE_BURST, 10000),
    maxBatchEvents: num(env.CHIPS_MAX_BATCH_EVENTS, 500),
    maxQueueEvents: num(env.CHIPS_MAX_QUEUE_EVENTS, 20000),
    pgPoolSize: num(env.CHIPS_PG_POOL, 10),
    banner: env.CHIPS_BANNER !== "0",
    statusTtlSeconds: num(env.CHIPS_STATUS_TTL, 60),
    presenceGraceSeconds: num(env.CHIPS_PRESENCE_GRACE, 30),
    leaseTtlSeconds: num(env.CHIPS_LEASE_TTL, 60),
    objectUrlTtlSeconds: num(env.CHIPS_OBJECT_URL_TTL, 300),
    maxObjectBytes: num(env.CHIPS_MAX_OBJECT_BYTES, 64 * 1024 * 1024),
    authAttemptsPerMinute: num(env.CHIPS_AUTH_ATTEMPTS, 30),
    trustedProxies: env.CHIPS_TRUSTED_PROXIES ?? "",
    socketMaxBufferedBytes: num(env.CHIPS_SOCKET_MAX_BUFFERED, 8 * 1024 * 1024),
    socketPingIntervalSeconds: num(env.CHIPS_SOCKET_PING_INTERVAL, 10),
    socketPingTimeoutSeconds: num(env.CHIPS_SOCKET_PING_TIMEOUT, 8),
    headsSweepSeconds: num(env.CHIPS_HEADS_SWEEP, 5),
    shutdownTimeoutSeconds: num(env.CHIPS_SHUTDOWN_TIMEOUT, 10),
    workspaceIdleSeconds: num(env.CHIPS_WORKSPACE_IDLE, 300),
    secret: env.CHIPS_SECRET || undefined,
    otlpQuietSeconds: num(env.CHIPS_OTLP_QUIET_SECONDS, 300),
    otlpExportUrl: env.CHIPS_OTLP_EXPORT_URL || undefined,
    otlpExportHeaders: env.CHIPS_OTLP_EXPORT_HEADERS ?? "",
    webhookRetryMs: num(env.CHIPS_WEBHOOK_RETRY_MS, 2000),
    webhookAttempts: num(env.CHIPS_WEBHOOK_ATTEMPTS, 6),
    ...overrides,
  };
  for (const [k, v] of Object.entries(cfg)) {
    if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`configuration ${k} is not a number`);
  }
  parseTrustedProxies(cfg.trustedProxies); // a typo stops the start, never trusts the wrong peers
  return cfg;
}
