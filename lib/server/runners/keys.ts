import fs from "node:fs";
import path from "node:path";
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";

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

/**
 * Load (or make, on first start) the keys. Several nodes must share them: point every
 * node's `CHIPS_DATA_DIR` key files at the same content (README: "Several nodes").
 */
export function loadServerKeys(dataDir: string): ServerKeys {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pem = readOrCreate(path.join(dataDir, LEASE_FILE), () =>
    Buffer.from(generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string),
  );
  const leasePrivate = createPrivateKey(pem);
  const leasePublicPem = createPublicKey(leasePrivate).export({ type: "spki", format: "pem" }) as string;
  const objectUrlKey = readOrCreate(path.join(dataDir, OBJECT_FILE), () => Buffer.from(randomBytes(32).toString("hex")));
  return { leasePrivate, leasePublicPem, objectUrlKey };
}
