import fs from "node:fs";
import path from "node:path";
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { Readable } from "node:stream";
import type { ObjectRef } from "@/lib/core/protocol/runner-contract";

const SHA_RE = /^[0-9a-f]{64}$/;
const ID_RE = /^[a-z]+_[0-9A-Z]{26}$/;

/** Where the bytes live: the local disk (embedded default) or PostgreSQL (every node reads them). */
export interface BlobBackend {
  /** Store `body` under `key` (content-addressed: the same bytes twice are one object). */
  put(key: string, body: Buffer): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** The bytes as a stream, or null when there are none. */
  open(key: string): Promise<Readable | null>;
}

/** Files under the data dir: write then rename, so a reader never sees half an object. */
export class FileBlobs implements BlobBackend {
  constructor(private root: string) {}

  private file(key: string) {
    return path.join(this.root, ...key.split("/"));
  }

  async put(key: string, body: Buffer) {
    const file = this.file(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.promises.writeFile(tmp, body, { mode: 0o600 });
    await fs.promises.rename(tmp, file);
  }

  exists(key: string) {
    return fs.promises.stat(this.file(key)).then(
      (s) => s.isFile(),
      () => false,
    );
  }

  async open(key: string) {
    return (await this.exists(key)) ? fs.createReadStream(this.file(key)) : null;
  }
}

/**
 * The store ([RN3]): large logs, check output and diffs, content-addressed per run. Events
 * carry `{key, sha256, bytes}`; a URL to read one is HMAC-signed and expiring, made when it
 * is asked for and never stored — any node holding the same key (CHIPS_SECRET) can verify it.
 */
export class ObjectStore {
  constructor(
    private blobs: BlobBackend,
    private hmacKey: Buffer,
  ) {}

  static keyOf(workspaceId: string, runId: string, sha256: string) {
    return `${workspaceId}/${runId}/${sha256}`;
  }

  /** Whether a key is one of ours (no path tricks). */
  private static valid(key: string): boolean {
    const [ws, run, sha, ...rest] = key.split("/");
    return !rest.length && ID_RE.test(ws ?? "") && ID_RE.test(run ?? "") && SHA_RE.test(sha ?? "");
  }

  async put(workspaceId: string, runId: string, body: Buffer): Promise<ObjectRef> {
    const sha256 = createHash("sha256").update(body).digest("hex");
    const key = ObjectStore.keyOf(workspaceId, runId, sha256);
    await this.blobs.put(key, body);
    return { key, sha256, bytes: body.length };
  }

  async exists(key: string): Promise<boolean> {
    return ObjectStore.valid(key) && this.blobs.exists(key);
  }

  async open(key: string): Promise<Readable | null> {
    return ObjectStore.valid(key) ? this.blobs.open(key) : null;
  }

  private mac(key: string, exp: number) {
    return createHmac("sha256", this.hmacKey).update(`${key}\n${exp}`).digest("hex");
  }

  /** A read URL for `key`, valid for `ttlSeconds`. */
  sign(key: string, ttlSeconds: number, now = Date.now()) {
    const exp = Math.floor(now / 1000) + ttlSeconds;
    return {
      url: `/objects/${key}?exp=${exp}&sig=${this.mac(key, exp)}`,
      expires_at: new Date(exp * 1000).toISOString(),
    };
  }

  verify(key: string, expRaw: string | undefined, sig: string | undefined, now = Date.now()): "ok" | "expired" | "bad" {
    const exp = Number(expRaw);
    if (!Number.isInteger(exp) || !sig || !/^[0-9a-f]{64}$/.test(sig)) return "bad";
    const good = Buffer.from(this.mac(key, exp), "hex");
    if (!timingSafeEqual(good, Buffer.from(sig, "hex"))) return "bad";
    return exp * 1000 < now ? "expired" : "ok";
  }
}
