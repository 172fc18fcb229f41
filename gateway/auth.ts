import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { HiringAdminService } from "../gen/hiring/v1/admin_pb.js";
import { HEADER } from "../lib/identity.js";

export const SESSION_COOKIE = "__Secure-accounts-session";

/** Reads one cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
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

/** Failed authentication; the family decides the status (hiring 401, time tracking 403). */
export class AuthenticationFailed extends Error {}

/**
 * Establishes who calls, per API family, and returns the identity headers the gateway sends
 * to the service. Client-sent identity headers are never forwarded.
 */
export class Authenticator {
  constructor(
    private readonly identity: Client<typeof IdentityService>,
    private readonly hiringKeys: Client<typeof HiringAdminService>,
  ) {}

  async identify(family: Family, creds: RequestCredentials, isPublic: boolean): Promise<Record<string, string>> {
    if (family === Family.HIRING) {
      const key = bearerToken(creds.authorization);
      if (!key) throw new AuthenticationFailed("missing API key");
      const { workspaceId } = await this.hiringKeys.verifyApiKey({ apiKey: key }).catch(rejectUnauthenticated);
      return { [HEADER.hiringWorkspaceId]: workspaceId };
    }
    if (isPublic) return {};
    const basic = basicCredentials(creds.authorization);
    const session = cookieValue(creds.cookie, SESSION_COOKIE);
    if (!basic && !session) throw new AuthenticationFailed("missing credentials");
    const { userId } = await this.identity
      .authenticate(basic ? { username: basic.username, password: basic.password } : { sessionToken: session })
      .catch(rejectUnauthenticated);
    const headers: Record<string, string> = { [HEADER.userId]: userId.toString() };
    if (session && !basic) headers[HEADER.sessionToken] = session;
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
