import { Code, ConnectError } from "@connectrpc/connect";

/**
 * Every error a service answers, named once. Services throw `ConnectError`s; the gateway turns
 * them into the family's HTTP answer. Time tracking (and the internal RPCs): the message is the
 * body, the Connect code gives the status, metadata gives the statuses a code cannot express.
 * Hiring export: `hiringError`, whose `error.type` the gateway writes.
 */

/** Error metadata the gateway reads: a status the code cannot express, the hiring type, Retry-After. */
export const ERROR_HEADER = { httpStatus: "x-http-status", errorType: "x-error-type", retryAfter: "x-retry-after" } as const;

function withStatus(status: number, code: Code, message: string): ConnectError {
  return new ConnectError(message, code, { [ERROR_HEADER.httpStatus]: String(status) });
}

/** 400: the request is wrong; the message says how. */
export const badRequest = (message: string) => new ConnectError(message, Code.InvalidArgument);
/** 402: the workspace's plan does not include this. */
export const paymentRequired = (message: string) => withStatus(402, Code.FailedPrecondition, message);
/** 403: the caller may not do this (or may not know that it exists). */
export const forbidden = (message = "Forbidden") => new ConnectError(message, Code.PermissionDenied);
/** The time-tracking reference's words for a member who may not do what it asked. */
export const NO_ACCESS = "User does not have access to this resource.";
/** 403 with NO_ACCESS. */
export const noAccess = () => forbidden(NO_ACCESS);
/** 404 */
export const notFound = (message: string) => new ConnectError(message, Code.NotFound);
/** 409: the thing is not in a state that allows this (an entry already stopped, a name taken at once). */
export const conflict = (message: string) => withStatus(409, Code.FailedPrecondition, message);
/** 429 with Retry-After. */
export function tooManyRequests(message: string, retryAfterSeconds: number): ConnectError {
  return new ConnectError(message, Code.ResourceExhausted, { [ERROR_HEADER.retryAfter]: String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}
/** 503: a dependency (database, another service) cannot be reached now; retrying later may work. */
export const unavailable = (message = "Service Unavailable") => new ConnectError(message, Code.Unavailable);
/** 401 of the internal RPCs (no or wrong internal token). */
export const unauthenticated = (message: string) => new ConnectError(message, Code.Unauthenticated);

/** A hiring export API error with its `error.type`. */
function typedError(code: Code, type: string, message = type): ConnectError {
  return new ConnectError(message, code, { [ERROR_HEADER.errorType]: type });
}

/** The hiring export family's errors. */
export const hiringError = {
  validation: (message: string) => typedError(Code.InvalidArgument, "ValidationError", message),
  unauthorized: () => typedError(Code.Unauthenticated, "UnauthorizedError"),
  notFound: () => typedError(Code.NotFound, "NotFoundError"),
  /** Two writers stored the same new records at once; the later one may retry. */
  concurrentChange: () => new ConnectError("a concurrent change wrote the same records; retry", Code.Aborted),
};

/**
 * Wraps an error received from another service, so its protocol headers are not copied into
 * this service's answer (a connect-es 2.1 pitfall), keeping code, message and our metadata.
 */
export function rewrap(err: unknown): ConnectError {
  const e = ConnectError.from(err);
  const metadata: Record<string, string> = {};
  for (const key of Object.values(ERROR_HEADER)) {
    const v = e.metadata.get(key);
    if (v) metadata[key] = v;
  }
  return new ConnectError(e.rawMessage, e.code, metadata);
}
