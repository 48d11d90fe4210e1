import net from "node:net";

/**
 * Which proxies in front of Chips are trusted to say who their client was
 * (`CHIPS_TRUSTED_PROXIES`): none (the socket's peer is the client), a count of hops (the
 * nearest N proxies, however addressed), or the addresses and networks they connect from.
 */
export type TrustedProxies = { kind: "none" } | { kind: "hops"; hops: number } | { kind: "nets"; nets: net.BlockList };

/**
 * Parse `CHIPS_TRUSTED_PROXIES`: empty for none, a whole number of hops (`1`), or a comma-separated
 * list of addresses and CIDR networks (`127.0.0.1/32,10.0.0.0/8,::1`). Throws on anything else,
 * so a typo stops the server at start rather than trusting the wrong peers.
 */
export function parseTrustedProxies(raw: string): TrustedProxies {
  const text = raw.trim();
  if (!text || text === "0") return { kind: "none" };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) throw new Error(`CHIPS_TRUSTED_PROXIES: ${hops} hops is more proxies than any chain has`);
    return { kind: "hops", hops };
  }
  const nets = new net.BlockList();
  for (const item of text.split(",").map((s) => s.trim())) {
    const [address, prefix, extra] = item.split("/");
    const family = net.isIP(address);
    const bits = family === 4 ? 32 : 128;
    const length = prefix === undefined ? bits : /^\d+$/.test(prefix) ? Number(prefix) : NaN;
    if (!family || extra !== undefined || !(length >= 0 && length <= bits))
      throw new Error(
        `CHIPS_TRUSTED_PROXIES: "${item}" is not an address or CIDR network (expected e.g. 1, or 127.0.0.1/32,10.0.0.0/8)`,
      );
    nets.addSubnet(address, length, family === 4 ? "ipv4" : "ipv6");
  }
  return { kind: "nets", nets };
}

/** An address as written in a chain, or null when it is not one (IPv4-mapped IPv6 is shown as IPv4). */
function normal(entry: string): string | null {
  const a = entry.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return net.isIP(a) ? a : null;
}

/**
 * The client's address: the socket's peer, or behind trusted proxies the right-most
 * `X-Forwarded-For` entry that is not one of them — never the left-most, which the client
 * writes itself. Each proxy appends the address it was reached from, so reading from the
 * right past the trusted ones reaches the first address no trusted proxy vouches for. An
 * entry that is not an address stops the walk at the proxy that passed it on.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string | undefined {
  const socket = peer === undefined ? undefined : (normal(peer) ?? peer);
  if (trusted.kind === "none" || socket === undefined || forwardedFor === undefined) return socket;
  const listed = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",");
  // Nearest first: the peer, then the entries from the right.
  const chain = [socket, ...listed.reverse()];
  let client = socket;
  for (let i = 0; i < chain.length; i++) {
    const proxy = trusted.kind === "hops" ? i < trusted.hops : isTrusted(trusted.nets, client);
    if (!proxy || i + 1 >= chain.length) break;
    const next = normal(chain[i + 1]);
    if (next === null) break;
    client = next;
  }
  return client;
}

function isTrusted(nets: net.BlockList, address: string): boolean {
  const family = net.isIP(address);
  return family !== 0 && nets.check(address, family === 6 ? "ipv6" : "ipv4");
}
