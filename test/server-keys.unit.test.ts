import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadServerKeys } from "../lib/server/dispatch/keys";
import { FileBlobs, ObjectStore } from "../lib/server/dispatch/objects";
import { sign, verify } from "node:crypto";

const SECRET = "a-secret-every-node-shares-0123456789";
const dirs = () => [
  fs.mkdtempSync(path.join(os.tmpdir(), "chips-keys-")),
  fs.mkdtempSync(path.join(os.tmpdir(), "chips-keys-")),
];

describe("keys every node shares (CHIPS_SECRET)", () => {
  it("[RN1] [RN3] two nodes with one secret and their own data dirs verify each other's leases and object URLs; nothing is written to disk", () => {
    const [a, b] = dirs();
    const ka = loadServerKeys(a, SECRET);
    const kb = loadServerKeys(b, SECRET);
    expect(ka.leasePublicPem).toBe(kb.leasePublicPem);
    expect(fs.readdirSync(a)).toEqual([]);
    const claims = Buffer.from("a lease signed on node A");
    expect(verify(null, claims, kb.leasePublicPem, sign(null, claims, ka.leasePrivate))).toBe(true);
    const key = `ws_01K4ZQPX000000000000000001/run_01K4ZQPX000000000000000002/${"a".repeat(64)}`;
    const onA = new ObjectStore(new FileBlobs(a), ka.objectUrlKey);
    const onB = new ObjectStore(new FileBlobs(b), kb.objectUrlKey);
    const url = new URL(onA.sign(key, 60).url, "http://x");
    expect(onB.verify(key, url.searchParams.get("exp")!, url.searchParams.get("sig")!)).toBe("ok");
  });

  it("without a secret each data dir has keys of its own (and another secret verifies nothing)", () => {
    const [a, b] = dirs();
    expect(loadServerKeys(a).leasePublicPem).not.toBe(loadServerKeys(b).leasePublicPem);
    expect(loadServerKeys(a).leasePublicPem).toBe(loadServerKeys(a).leasePublicPem); // kept in the dir
    expect(loadServerKeys(a, SECRET).leasePublicPem).not.toBe(loadServerKeys(a, SECRET + "!").leasePublicPem);
    expect(() => loadServerKeys(a, "short")).toThrow(/at least 32/);
  });
});
