import { hash } from "node:crypto";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { HiringAdminService } from "../gen/hiring/v1/admin_pb.js";
import { HEADER } from "../lib/identity.js";

export const SESSION_COOKIE = "__Secure-accounts-session";

/** Failed authentication; the family decides the status (hiring 401, time tracking 403). */
export class AuthenticationFailed extends Error {}

/** Reads one cookie's value from a Cookie header; a value that is not valid percent-encoding fails authentication. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        throw new AuthenticationFailed("malformed session cookie");
      }
    }
  }
  return undefined;
}

/** Splits `Basic base64(user:password)`; undefined when the header is not that. */
export function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m?.[1];
}

export interface RequestCredentials {
  authorization?: string;
  cookie?: string;
}

/**
 * Successful time-tracking authentications, remembered for `ttlMs` by a hash of the
 * credentials, so that a client's burst does not run scrypt and an RPC per request. What
 * revokes credentials (token reset, session end, password change, account closed) forgets the
 * user's entries in this replica at once; other gateway replicas keep them for at most `ttlMs`.
 */
export class RememberedAuthentications {
  private readonly entries = new Map<string, { userId: string; headers: Record<string, string>; at: number }>();

  constructor(
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key of credentials as they came: the Authorization header, or the session cookie's value. */
  static key(authorization: string | undefined, session: string | undefined): string {
    return hash("sha256", authorization ? `authorization\0${authorization}` : `session\0${session}`, "base64url");
  }

  get(key: string): Record<string, string> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.headers;
  }

  remember(key: string, headers: Record<string, string>): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { userId: headers[HEADER.userId], headers, at: this.now() });
  }

  /** Forgets every remembered authentication of the user. */
  forgetUser(userId: string): void {
    for (const [key, entry] of this.entries) if (entry.userId === userId) this.entries.delete(key);
  }
}

/**
 * Establishes who calls, per API family, and returns the identity headers the gateway sends
 * to the service. Client-sent identity headers are never forwarded.
 */
export class Authenticator {
  constructor(
    private readonly identity: Client<typeof IdentityService>,
    private readonly hiringKeys: Client<typeof HiringAdminService>,
    readonly remembered = new RememberedAuthentications(),
  ) {}

  async identify(family: Family, creds: RequestCredentials, isPublic: boolean): Promise<Record<string, string>> {
    if (family === Family.HIRING) {
      const key = bearerToken(creds.authorization);
      if (!key) throw new AuthenticationFailed("missing API key");
      // The hiring service remembers verified key rows itself (KeyVerifier).
      const { workspaceId } = await this.hiringKeys.verifyApiKey({ apiKey: key }).catch(rejectUnauthenticated);
      return { [HEADER.hiringWorkspaceId]: workspaceId };
    }
    if (isPublic) return {};
    // Looked up before the header is parsed: only valid Basic credentials are remembered by it.
    const headerKey = creds.authorization ? RememberedAuthentications.key(creds.authorization, undefined) : undefined;
    const knownHeader = headerKey && this.remembered.get(headerKey);
    if (knownHeader) return knownHeader;
    const basic = basicCredentials(creds.authorization);
    const session = basic ? undefined : cookieValue(creds.cookie, SESSION_COOKIE);
    if (!basic && !session) throw new AuthenticationFailed("missing credentials");
    const rememberKey = basic ? headerKey! : RememberedAuthentications.key(undefined, session);
    if (!basic) {
      const knownSession = this.remembered.get(rememberKey);
      if (knownSession) return knownSession;
    }
    const { userId } = await this.identity
      .authenticate(basic ? { username: basic.username, password: basic.password } : { sessionToken: session })
      .catch(rejectUnauthenticated);
    const headers: Record<string, string> = { [HEADER.userId]: userId.toString() };
    if (session) headers[HEADER.sessionToken] = session;
    this.remembered.remember(rememberKey, headers);
    return headers;
  }
}

function rejectUnauthenticated(err: unknown): never {
  const e = ConnectError.from(err);
  if (e.code === Code.Unauthenticated || e.code === Code.NotFound || e.code === Code.PermissionDenied) {
    throw new AuthenticationFailed(e.rawMessage);
  }
  throw e;
}
