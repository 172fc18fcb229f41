import { isIP, BlockList } from "node:net";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";

/** Addresses a webhook may never reach by default: loopback, private, link-local (cloud metadata), and the like. */
const internal = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  internal.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const) {
  internal.addSubnet(net, prefix, "ipv6");
}

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return internal.check(mapped[1], "ipv4");
    return internal.check(address, "ipv6");
  }
  return internal.check(address, "ipv4");
}

export interface TargetRules {
  /** WEBHOOK_ALLOW_INTERNAL=1: internal addresses and any port may be targets (development, tests). */
  allowInternal: boolean;
}

/** The ports a webhook may target under the default rules. */
export function allowedPort(url: URL): boolean {
  return url.port === "" || url.port === "80" || url.port === "443";
}

/**
 * What the rules refuse in a URL itself, before any name is resolved: a scheme other than
 * http(s), and unless they are relaxed a port other than 80/443 or a literal internal address.
 * Checked when a subscription is made and again before each connection.
 */
export function refusedUrl(url: URL, rules: TargetRules): "scheme" | "port" | "internal" | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "scheme";
  if (rules.allowInternal) return undefined;
  if (!allowedPort(url)) return "port";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && isInternalAddress(host)) return "internal";
  return undefined;
}

/** Checks a callback URL when a subscription is made: refusedUrl, no credentials, no internal host names. */
export function checkTargetUrl(raw: string, rules: TargetRules): string | undefined {
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
  if (refused === "internal") return "URL must not point to an internal address";
  if (rules.allowInternal) return undefined;
  const host = url.hostname;
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host.endsWith(".local")) return "URL must not point to an internal address";
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Resolves a host name to its addresses (the system resolver; tests give their own). */
export type Resolver = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, (err, addresses) => callback(err, addresses ?? []));

/**
 * A DNS lookup for outgoing webhook connections that refuses internal addresses. The socket
 * connects to exactly the address this answers, so the check applies to the address actually
 * connected to (no DNS rebinding around it).
 */
export function guardedLookup(rules: TargetRules, resolve: Resolver = systemResolver) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname, (err, list) => {
      if (err) return callback(err, "");
      const allowed = rules.allowInternal ? list : list.filter((a) => !isInternalAddress(a.address));
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
