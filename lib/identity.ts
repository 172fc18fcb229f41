import { timingSafeEqual, hash } from "node:crypto";
import { Code, ConnectError, createContextKey, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { inMemoryCall } from "./local-transport.js";

/** Request metadata that only holders of the internal token can set. */
export const HEADER = {
  internalToken: "x-internal-token",
  userId: "x-user-id",
  hiringWorkspaceId: "x-hiring-workspace-id",
  sessionToken: "x-session-token",
  requestUrl: "x-request-url",
} as const;

/** Who is calling, as the gateway established it. Internal callers have no user. */
export interface Caller {
  userId?: bigint;
  hiringWorkspaceId?: string;
  sessionToken?: string;
  /** The public URL of the REST request, for answers that link to further pages. */
  requestUrl?: string;
}

export const callerKey = createContextKey<Caller>({}, { description: "caller" });

const digest = (s: string) => hash("sha256", s, "buffer");

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Server side: every call over the network must carry the internal token (a call in memory never
 * crossed one); the identity headers that come with it are put into the context. Anything else
 * is rejected before a handler runs.
 */
export function internalAuthInterceptor(token: string): Interceptor {
  const expected = digest(token);
  // Not async: a layer that only checks hands on the next one's promise (an async one costs each call a promise and ticks).
  return (next) => (req) => {
    if (!req.contextValues.get(inMemoryCall)) {
      const presented = req.header.get(HEADER.internalToken) ?? "";
      if (!presented || !timingSafeEqual(digest(presented), expected)) {
        return Promise.reject(new ConnectError("internal token required", Code.Unauthenticated));
      }
    }
    const caller: Caller = {};
    const userId = req.header.get(HEADER.userId);
    if (userId && /^\d+$/.test(userId)) caller.userId = BigInt(userId);
    caller.hiringWorkspaceId = req.header.get(HEADER.hiringWorkspaceId) || undefined;
    caller.sessionToken = req.header.get(HEADER.sessionToken) || undefined;
    caller.requestUrl = req.header.get(HEADER.requestUrl) || undefined;
    req.contextValues.set(callerKey, caller);
    return next(req);
  };
}

/** Client side: adds the internal token to every call. */
export function internalTokenInterceptor(token: string): Interceptor {
  return (next) => async (req) => {
    req.header.set(HEADER.internalToken, token);
    return next(req);
  };
}

export function caller(ctx: HandlerContext): Caller {
  return ctx.values.get(callerKey);
}

/** The authenticated time-tracking user; RPCs with a REST route always have one. */
export function requireUser(ctx: HandlerContext): bigint {
  const id = caller(ctx).userId;
  if (id === undefined) throw new ConnectError("authentication required", Code.Unauthenticated);
  return id;
}
