import { describe, expect, it } from "vitest";
import { clientAddress, parseTrustedProxies } from "../lib/server/client-address";
import { loadConfig } from "../lib/server/env";

const none = parseTrustedProxies("");
const oneHop = parseTrustedProxies("1");
const twoHops = parseTrustedProxies("2");
const nets = parseTrustedProxies("127.0.0.1/32, 10.0.0.0/8,fd00::/8");
const env = (proxies: string): NodeJS.ProcessEnv => ({ NODE_ENV: "test", CHIPS_TRUSTED_PROXIES: proxies });

describe("[OPS2] the client's address behind trusted proxies", () => {
  it("[OPS2] no trusted proxy: the socket's peer, whatever X-Forwarded-For says", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.7", none)).toBe("127.0.0.1");
    expect(clientAddress("::ffff:192.0.2.4", "203.0.113.7", none)).toBe("192.0.2.4");
    expect(clientAddress("2001:db8::1", undefined, none)).toBe("2001:db8::1");
    expect(parseTrustedProxies("0")).toEqual(none);
  });

  it("[OPS2] a hop count trusts the nearest proxies: the entry that many from the right, never a forged one left of it", () => {
    expect(clientAddress("10.0.0.5", "203.0.113.7", oneHop)).toBe("203.0.113.7");
    // The client wrote "198.51.100.1" itself; the proxy appended the address it was reached from.
    expect(clientAddress("10.0.0.5", "198.51.100.1, 203.0.113.7", oneHop)).toBe("203.0.113.7");
    expect(clientAddress("10.0.0.5", "198.51.100.1, 203.0.113.7, 10.0.0.9", twoHops)).toBe("203.0.113.7");
    // Several header lines are one list, in order.
    expect(clientAddress("10.0.0.5", ["198.51.100.1", "203.0.113.7"], oneHop)).toBe("203.0.113.7");
    // Fewer entries than hops: the left-most there is (a proxy wrote it).
    expect(clientAddress("10.0.0.5", "203.0.113.7", twoHops)).toBe("203.0.113.7");
    // No header: the peer.
    expect(clientAddress("10.0.0.5", undefined, oneHop)).toBe("10.0.0.5");
  });

  it("[OPS2] trusted networks: the right-most entry not from one of them; a peer outside them is the client itself", () => {
    expect(clientAddress("127.0.0.1", "198.51.100.1, 203.0.113.7, 10.1.2.3", nets)).toBe("203.0.113.7");
    expect(clientAddress("::ffff:127.0.0.1", "203.0.113.7", nets)).toBe("203.0.113.7");
    expect(clientAddress("fd00::2", "2001:db8::7", nets)).toBe("2001:db8::7");
    // Every hop trusted: the left-most (the first proxy's own client).
    expect(clientAddress("127.0.0.1", "10.9.9.9", nets)).toBe("10.9.9.9");
    // A peer that is no trusted proxy sent the header itself: it is ignored.
    expect(clientAddress("192.0.2.50", "203.0.113.7", nets)).toBe("192.0.2.50");
    // Something that is no address stops the walk at the proxy that passed it on.
    expect(clientAddress("127.0.0.1", "203.0.113.7, unknown", nets)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "", nets)).toBe("127.0.0.1");
  });

  it("[OPS2] a setting that is neither a hop count nor addresses stops the server at start", () => {
    for (const bad of ["yes", "10.0.0.0/33", "10.0.0/8", "127.0.0.1/32,", "::1/129", "1/2/3", "-1"])
      expect(() => loadConfig(env(bad))).toThrow(/CHIPS_TRUSTED_PROXIES/);
    expect(loadConfig(env("127.0.0.1,::1")).trustedProxies).toBe("127.0.0.1,::1");
  });
});
