import fs from "node:fs";
import path from "node:path";
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { ObjectRef } from "@/lib/runner";

const SHA_RE = /^[0-9a-f]{64}$/;
const ID_RE = /^[a-z]+_[0-9A-Z]{26}$/;

/**
 * The object store ([RN3]): large logs, check output and diffs, content-addressed per run
 * on the filesystem under the data dir. Events carry `{key, sha256, bytes}`; a URL to read
 * one is HMAC-signed and expiring, made when it is asked for and never stored.
 */
export class ObjectStore {
  constructor(
    private root: string,
    private hmacKey: Buffer,
  ) {}

  static keyOf(workspaceId: string, runId: string, sha256: string) {
    return `${workspaceId}/${runId}/${sha256}`;
  }

  /** The file of a key, or null when the key is not one of ours (no path tricks). */
  private file(key: string): string | null {
    const [ws, run, sha, ...rest] = key.split("/");
    if (rest.length || !ID_RE.test(ws ?? "") || !ID_RE.test(run ?? "") || !SHA_RE.test(sha ?? "")) return null;
    return path.join(this.root, ws, run, sha);
  }

  async put(workspaceId: string, runId: string, body: Buffer): Promise<ObjectRef> {
    const sha256 = createHash("sha256").update(body).digest("hex");
    const key = ObjectStore.keyOf(workspaceId, runId, sha256);
    const file = this.file(key)!;
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // Write then rename: a reader never sees half an object; the same bytes twice are one object.
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.promises.writeFile(tmp, body, { mode: 0o600 });
    await fs.promises.rename(tmp, file);
    return { key, sha256, bytes: body.length };
  }

  async exists(key: string): Promise<boolean> {
    const file = this.file(key);
    if (!file) return false;
    return fs.promises.stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
  }

  open(key: string): fs.ReadStream | null {
    const file = this.file(key);
    return file && fs.existsSync(file) ? fs.createReadStream(file) : null;
  }

  private mac(key: string, exp: number) {
    return createHmac("sha256", this.hmacKey).update(`${key}\n${exp}`).digest("hex");
  }

  /** A read URL for `key`, valid for `ttlSeconds`. */
  sign(key: string, ttlSeconds: number, now = Date.now()) {
    const exp = Math.floor(now / 1000) + ttlSeconds;
    return { url: `/objects/${key}?exp=${exp}&sig=${this.mac(key, exp)}`, expires_at: new Date(exp * 1000).toISOString() };
  }

  verify(key: string, expRaw: string | undefined, sig: string | undefined, now = Date.now()): "ok" | "expired" | "bad" {
    const exp = Number(expRaw);
    if (!Number.isInteger(exp) || !sig || !/^[0-9a-f]{64}$/.test(sig)) return "bad";
    const good = Buffer.from(this.mac(key, exp), "hex");
    if (!timingSafeEqual(good, Buffer.from(sig, "hex"))) return "bad";
    return exp * 1000 < now ? "expired" : "ok";
  }
}
