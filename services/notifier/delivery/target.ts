import { isIP, BlockList } from "node:net";
import { networkInterfaces } from "node:os";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";

/**
 * The ranges of the IANA IPv4 Special-Purpose Address Registry, and multicast: none of them is a
 * webhook receiver on the internet (private, loopback, link-local with the cloud metadata address,
 * documentation, benchmarking, relay and protocol ranges).
 */
const SPECIAL_IPV4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // shared address space (CGNAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.31.196.0", 24], // AS112
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["192.175.48.0", 24], // AS112 direct delegation
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255 (limited broadcast)
];

/**
 * The ranges of the IANA IPv6 Special-Purpose Address Registry, with every form that carries an
 * IPv4 address (compatible, mapped, NAT64, 6to4, Teredo: refused whole, whatever they embed), and
 * whatever lies outside 2000::/3, the only space allocated for global unicast.
 */
const SPECIAL_IPV6: readonly (readonly [string, number])[] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated)
  ["::ffff:0:0", 96], // IPv4-mapped
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["100:0:0:1::", 64], // dummy prefix
  ["2001::", 23], // IETF protocol assignments, Teredo (2001::/32) among them
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["2620:4f:8000::", 48], // AS112 direct delegation
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
  // Outside global unicast (reserved by the IETF); this covers several of the above again.
  ["::", 3],
  ["4000::", 2],
  ["8000::", 1],
];

/**
 * Two lists, not one: a BlockList matches an IPv4 address against IPv6 rules in its mapped form
 * (::ffff:a.b.c.d), so the IPv6 ranges above would refuse every IPv4 address.
 */
const specialIpv4 = new BlockList();
for (const [net, prefix] of SPECIAL_IPV4) specialIpv4.addSubnet(net, prefix, "ipv4");
const specialIpv6 = new BlockList();
for (const [net, prefix] of SPECIAL_IPV6) specialIpv6.addSubnet(net, prefix, "ipv6");

/** This host's own addresses, read at each check so that an interface added since counts. */
function ownAddresses(): BlockList {
  const own = new BlockList();
  for (const info of Object.values(networkInterfaces()).flat()) {
    if (!info) continue;
    const family = isIP(info.address);
    if (family) own.addAddress(info.address, family === 4 ? "ipv4" : "ipv6");
  }
  return own;
}

/**
 * True for an address a webhook may not reach by default: a special-purpose one or one of this
 * host's own (a public address of its interface is the host itself); also for what is no address.
 */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const type = family === 4 ? "ipv4" : "ipv6";
  return (family === 4 ? specialIpv4 : specialIpv6).check(address, type) || ownAddresses().check(address, type);
}

/**
 * Names that mean this host or a private network whatever DNS answers: `localhost` and its
 * subdomains (RFC 6761), `.internal`, `.local` (mDNS) and `.home.arpa`. A trailing dot (the
 * fully qualified form, `localhost.`) names the same host.
 */
function isInternalName(hostname: string): boolean {
  const name = hostname.replace(/\.+$/, "");
  return name === "localhost" || [".localhost", ".internal", ".local", ".home.arpa"].some((suffix) => name.endsWith(suffix));
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Resolves a host name to its addresses (the system resolver; tests give their own). */
export type Resolver = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, (err, addresses) => callback(err, addresses ?? []));

export interface TargetRules {
  /** WEBHOOK_ALLOW_INTERNAL=1: internal addresses and any port may be targets (development, tests). */
  allowInternal: boolean;
  /** Host name resolution (the system resolver unless a test gives its own). */
  resolve?: Resolver;
}

/** The ports a webhook may target under the default rules. */
export function allowedPort(url: URL): boolean {
  return url.port === "" || url.port === "80" || url.port === "443";
}

/** The host of a URL without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * What the rules refuse in a URL itself, before any name is resolved: a scheme other than
 * http(s), and unless they are relaxed a port other than 80/443, a refused literal address or an
 * internal name. Checked when a subscription is made and again before each connection (literal
 * addresses are connected to without a lookup).
 */
export function refusedUrl(url: URL, rules: TargetRules): "scheme" | "port" | "internal" | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "scheme";
  if (rules.allowInternal) return undefined;
  if (!allowedPort(url)) return "port";
  const host = bareHost(url);
  if (isIP(host) ? isRefusedAddress(host) : isInternalName(host)) return "internal";
  return undefined;
}

/** How long creating a subscription waits for its name to resolve. */
const CREATION_LOOKUP_TIMEOUT_MS = 3_000;

/** The message of a refused URL, as subscriptions answer it. */
const INTERNAL = "URL must not point to an internal address";

/**
 * Checks a callback URL when a subscription is made: refusedUrl, no credentials, and a name must
 * not resolve to a refused address (any of its addresses: a name that points inside is refused
 * now rather than failing at each delivery). A name that does not resolve now passes; the
 * connect-time lookup checks it again at every delivery.
 */
export async function checkTargetUrl(raw: string, rules: TargetRules): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "URL is not valid";
  }
  const refused = refusedUrl(url, rules);
  if (refused === "scheme") return "URL must use http or https";
  if (url.username || url.password) return "URL must not contain credentials";
  if (refused === "port") return "URL port must be 80 or 443";
  if (refused === "internal") return INTERNAL;
  const host = bareHost(url);
  if (rules.allowInternal || isIP(host)) return undefined;
  // A resolver that does not answer in time does not hold the request: the name is checked again at each delivery.
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), CREATION_LOOKUP_TIMEOUT_MS);
    (rules.resolve ?? systemResolver)(host, (err, list) => (clearTimeout(timer), resolve(err ? [] : list)));
  });
  return addresses.some((a) => isRefusedAddress(a.address)) ? INTERNAL : undefined;
}

/**
 * A DNS lookup for outgoing webhook connections that refuses internal addresses. The socket
 * connects to exactly the address this answers, so the check applies to the address actually
 * connected to (no DNS rebinding around it).
 */
export function guardedLookup(rules: TargetRules) {
  const resolve = rules.resolve ?? systemResolver;
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname, (err, list) => {
      if (err) return callback(err, "");
      const allowed = rules.allowInternal ? list : list.filter((a) => !isRefusedAddress(a.address));
      if (allowed.length === 0) {
        const e: NodeJS.ErrnoException = new Error(`refusing to connect to internal address of ${hostname}`);
        e.code = "EINTERNALADDRESS";
        return callback(e, "");
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
