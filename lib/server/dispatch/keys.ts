import fs from "node:fs";
import path from "node:path";
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from "node:crypto";

/** The server's signing keys: never in the database, never logged; files 0600 in the data dir. */
export interface ServerKeys {
  /** Signs leases (Ed25519). */
  leasePrivate: KeyObject;
  /** What runners verify leases with (SPKI PEM). */
  leasePublicPem: string;
  /** HMAC key of signed object URLs ([RN3]). */
  objectUrlKey: Buffer;
}

const LEASE_FILE = "lease-key.pem";
const OBJECT_FILE = "object-url-key";

function readOrCreate(file: string, make: () => Buffer): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  const value = make();
  try {
    // wx: two nodes starting on one data dir must not overwrite each other's key.
    fs.writeFileSync(file, value, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return fs.readFileSync(file);
  }
  return value;
}

/** PKCS#8 DER of an Ed25519 private key is this prefix and its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

const derive = (secret: string, what: string) => Buffer.from(hkdfSync("sha256", secret, "chips", what, 32));

/**
 * The keys. With a shared secret (CHIPS_SECRET) they are derived from it (HKDF-SHA256), so
 * every node signs and verifies alike and nothing secret is stored — not in the database,
 * not on disk. Without one, they are made on first start as files 0600 in the data dir.
 */
export function loadServerKeys(dataDir: string, secret?: string): ServerKeys {
  if (secret) {
    if (secret.length < 32)
      throw new Error("CHIPS_SECRET must be at least 32 characters (e.g. `openssl rand -hex 32`)");
    const leasePrivate = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, derive(secret, "lease-key")]),
      format: "der",
      type: "pkcs8",
    });
    const leasePublicPem = createPublicKey(leasePrivate).export({ type: "spki", format: "pem" }) as string;
    return {
      leasePrivate,
      leasePublicPem,
      objectUrlKey: Buffer.from(derive(secret, "object-url-key").toString("hex")),
    };
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pem = readOrCreate(path.join(dataDir, LEASE_FILE), () =>
    Buffer.from(generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string),
  );
  const leasePrivate = createPrivateKey(pem);
  const leasePublicPem = createPublicKey(leasePrivate).export({ type: "spki", format: "pem" }) as string;
  const objectUrlKey = readOrCreate(path.join(dataDir, OBJECT_FILE), () =>
    Buffer.from(randomBytes(32).toString("hex")),
  );
  return { leasePrivate, leasePublicPem, objectUrlKey };
}
