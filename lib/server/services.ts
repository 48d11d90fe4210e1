import path from "node:path";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import type { ChipsConfig } from "@/lib/server/env";
import { CredentialStore } from "./credentials";
import { RateLimiter } from "./ingest/rate-limit";
import { IngestWriter } from "./ingest/writer";
import { AccessBus, CommitBus } from "./buses";
import { createLoginLink, SessionStore, workspaceOwner } from "./sessions";
import { Presence } from "./presence";
import { loadServerKeys, type ServerKeys } from "./dispatch/keys";
import { FileBlobs, ObjectStore } from "./dispatch/objects";
import { PgBlobs } from "./dispatch/pg-blobs";
import { ConnectedRunners } from "./dispatch/connected";
import { log } from "./log";
import { StorageHealth } from "./storage";
import { AttemptLimiter } from "./attempts";
import { clientAddress, parseTrustedProxies } from "./client-address";
import { ReviewIndexer } from "./review/indexer";
import { IdleRelease } from "./idle";
import { AskWaits } from "./ask-waits";
import { CoalescedNotify } from "./notify";
import { commitNotice } from "./ingest/commit-notice";

/** The server's services, built once from config and a database. Transport-free. */
export interface ChipsServices {
  /** This server process among the nodes sharing one Postgres. */
  nodeId: string;
  config: ChipsConfig;
  database: Database;
  db: Database["db"];
  credentials: CredentialStore;
  sessions: SessionStore;
  writer: IngestWriter;
  limiter: RateLimiter;
  /** Failed sign-in attempts per client address (429 past the limit). */
  attempts: AttemptLimiter;
  /**
   * The client's address of a request or socket handshake: its peer, or behind the trusted
   * proxies (CHIPS_TRUSTED_PROXIES) the nearest `X-Forwarded-For` entry they vouch for.
   */
  clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined;
  presence: Presence;
  /** Whether the database answers, as this node last saw it (503s, readiness, "reconnecting to storage"). */
  storage: StorageHealth;
  /** The server has begun shutting down (lib/server/shutdown.ts): readiness answers 503 from then on. */
  stopping: boolean;
  /** Lease signing and object-URL keys (data dir files, never in the database). */
  keys: ServerKeys;
  /** The runners connected to this node (their /harness sockets add them). */
  runners: ConnectedRunners;
  /** Artifacts of runner runs ([RN3]). */
  objects: ObjectStore;
  /** The review index of runs (the runs page, search), kept after commit (docs/REVIEW.md). */
  review: ReviewIndexer;
  /**
   * Lets go of what idle workspaces held (heads, cached credentials, presence, fan-out state)
   * after CHIPS_WORKSPACE_IDLE seconds quiet ([SCL1]); `held()` counts what is kept now.
   */
  idle: IdleRelease;
  /** Long-polls waiting for an ask to move ([ASK4]); the fan-out tells it of every ask event. */
  askWaits: AskWaits;
  /** This node's commits, each batch in seq order, for the subscribers named in buses.ts. */
  commits: CommitBus;
  /**
   * How other nodes hear of this node's commits (`node-notices` on the commit bus): one
   * NOTIFY a commit, sent after it, coalesced into one statement a turn; null on PGlite.
   */
  nodeNotices: CoalescedNotify | null;
  /**
   * Someone's access changed — a subject or token revoked, a person re-roled — on this node
   * or another (lib/server/revoke.ts): the caches forget them, their sockets close or hear.
   */
  access: AccessBus;
  roomUrl(workspaceId: string, spaceId: string): string;
  /** A room link that logs its first opener in as `personId` (the workspace's owner by default). */
  loginUrl(workspaceId: string, spaceId: string | null, personId?: string): Promise<string>;
}

export function createServices(config: ChipsConfig, database: Database): ChipsServices {
  const commits = new CommitBus();
  const review = new ReviewIndexer(database);
  commits.subscribe("review-index", (ws, batch) => review.committed(ws, batch));
  const nodeId = randomUUID();
  const storage = new StorageHealth(() => database.query(sql`select 1`));
  const keys = loadServerKeys(config.dataDir, config.secret);
  if (database.kind === "postgres" && !config.secret)
    log.warn(
      "DATABASE_URL without CHIPS_SECRET: leases and object URLs are signed with this node's own keys; give every node the same CHIPS_SECRET",
    );
  const writer = new IngestWriter(database, {
    maxBatchEvents: config.maxBatchEvents,
    maxQueueEvents: config.maxQueueEvents,
    analyzeEvery: database.kind === "postgres" ? 20_000 : undefined,
    onStorageGone: (e) => storage.failed(e, "ingest"),
    onCommit: (ws, batch) => commits.publish(ws, batch),
  });
  // After the commit, not in it: a NOTIFY in the commit's own statement held PostgreSQL's global
  // notify lock through the commit's WAL flush, one commit at a time across every node.
  const nodeNotices = database.listen ? new CoalescedNotify(database, COMMITS_CHANNEL) : null;
  if (nodeNotices)
    commits.subscribe("node-notices", (ws, batch) => {
      const notice = commitNotice(nodeId, ws, batch[0].event.seq - 1, batch[batch.length - 1].event.seq);
      nodeNotices
        .send(notice)
        .catch((e) =>
          log.warn(
            { err: e, workspaceId: ws },
            "other nodes not told of a commit; their next read of heads repairs it",
          ),
        );
    });
  const credentialStore = new CredentialStore(database.db);
  const proxies = parseTrustedProxies(config.trustedProxies);
  const sessionStore = new SessionStore(database.db);
  const access = new AccessBus();
  access.subscribe("credential-cache", (id) => credentialStore.forget(id));
  access.subscribe("session-cache", (id) => sessionStore.forget(id));
  const limiter = new RateLimiter(config.rateLimit, config.rateBurst);
  const attempts = new AttemptLimiter(config.authAttemptsPerMinute);
  const presence = new Presence(config.presenceGraceSeconds * 1000);
  const idle = new IdleRelease(config.workspaceIdleSeconds * 1000);
  for (const part of [writer, review, presence, credentialStore, sessionStore, attempts]) idle.add(part);
  idle.add({ release: () => limiter.release(), held: () => ({ rateBuckets: limiter.size }) });
  const svc: ChipsServices = {
    access,
    nodeId,
    config,
    database,
    db: database.db,
    credentials: credentialStore,
    sessions: sessionStore,
    writer,
    limiter,
    attempts,
    clientAddress: (peer, forwardedFor) => clientAddress(peer, forwardedFor, proxies),
    presence,
    idle,
    storage,
    stopping: false,
    keys,
    runners: new ConnectedRunners(),
    // Several nodes on one PostgreSQL all read artifacts from it; the embedded default keeps the disk.
    objects: new ObjectStore(
      database.kind === "postgres" ? new PgBlobs(database.db) : new FileBlobs(path.join(config.dataDir, "objects")),
      keys.objectUrlKey,
    ),
    review,
    askWaits: new AskWaits(),
    commits,
    nodeNotices,
    roomUrl: (ws, spc) => `${config.publicUrl}${roomPath(ws, spc)}`,
    async loginUrl(ws, spc, personId) {
      const person = personId ?? (await workspaceOwner(database.db, ws));
      if (!person) throw new Error(`workspace ${ws} has no owner to log in as`);
      return createLoginLink(database.db, config.publicUrl, ws, person, spc ? roomPath(ws, spc) : `/w/${ws}`);
    },
  };
  return svc;
}

const roomPath = (ws: string, spc: string) => `/w/${ws}/r/${spc}`;

/** The Postgres channel on which nodes tell each other of commits. */
export const COMMITS_CHANNEL = "chips_commits";
