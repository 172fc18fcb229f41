import { Code, ConnectError } from "@connectrpc/connect";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import { ERROR_HEADER } from "../lib/errors.js";

/** HTTP status of each Connect code, as grpc-gateway and Vanguard map them. */
const STATUS_OF_CODE: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

/** `error.type` of the hiring export API for each status, where the service names none. */
const HIRING_TYPE_OF_STATUS: Record<number, string> = {
  400: "ValidationError",
  401: "UnauthorizedError",
  403: "ForbiddenError",
  404: "NotFoundError",
  405: "MethodNotAllowedError",
  409: "ConflictError",
  410: "VersionNoLongerAvailableError",
  408: "RequestTimeoutError",
  413: "PayloadTooLargeError",
  414: "UriTooLongError",
  415: "UnsupportedMediaTypeError",
  429: "RateLimitError",
  431: "RequestHeaderFieldsTooLargeError",
  501: "UnimplementedError",
  503: "ServiceUnavailableError",
  504: "GatewayTimeoutError",
};

/** Paths of the hiring export API: `/api/v2/...` and `/api/v2.<minor>/...`. */
export function familyOfPath(url: string): Family {
  return /^\/api\/v2(\.\d+)?(\/|$|\?)/.test(url) ? Family.HIRING : Family.TRACKING;
}

/** Hiring versions that existed and are gone: they answer 410, not 404. */
export function isRetiredHiringVersion(url: string): boolean {
  return /^\/api\/v2\.[01](\/|$|\?)/.test(url);
}

export interface ErrorReply {
  status: number;
  body: unknown;
  /** Seconds for a Retry-After header (429, 503). */
  retryAfter?: number;
}

/** How long a client should wait before retrying a call that found a service unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** Node's codes for a connection that could not be made or was lost on the way. */
const TRANSPORT_FAILURES = /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ERR_STREAM_DESTROYED|ERR_STREAM_PREMATURE_CLOSE|ERR_HTTP2_\w+)$/;

/**
 * True when the call failed on the way to or from the service (refused, reset, dropped), not
 * with an answer of the service: the transport wraps the Node error it met as the cause, or
 * reports the HTTP/2 stream's reset.
 */
export function isTransportFailure(err: ConnectError): boolean {
  // The gateway never cancels its own calls (a deadline is DeadlineExceeded): a cancel is the stream's reset.
  if (err.code === Code.Canceled) return true;
  // connect-node's fixed wording for an HTTP/2 stream reset by the other side (it carries no cause).
  if (err.rawMessage.startsWith("http/2 stream closed with error code")) return true;
  for (let cause: unknown = err.cause, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && TRANSPORT_FAILURES.test(code)) return true;
  }
  return false;
}

/** The error body of a family: hiring `{"error":{"type"}}`, time tracking a JSON string. */
export function errorReply(family: Family, status: number, message: string, type?: string): ErrorReply {
  if (family === Family.HIRING) {
    return { status, body: { error: { type: type ?? HIRING_TYPE_OF_STATUS[status] ?? (status >= 500 ? "InternalServerError" : "BadRequestError") } } };
  }
  return { status, body: message };
}

/**
 * Turns a service's error into the family's HTTP answer; internal details never leave. A
 * service that cannot be reached or drops the connection is 503 with Retry-After, whatever
 * code the transport gave it: the client may retry, and no transport text is forwarded.
 */
export function replyForConnectError(family: Family, err: ConnectError): ErrorReply {
  if (err.code === Code.Unavailable || isTransportFailure(err)) {
    return { ...errorReply(family, 503, "Service Unavailable"), retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS };
  }
  const override = Number(err.metadata.get(ERROR_HEADER.httpStatus));
  let status = Number.isInteger(override) && override >= 400 && override < 600 ? override : STATUS_OF_CODE[err.code] ?? 500;
  // The time-tracking API answers failed authentication with 403.
  if (family === Family.TRACKING && status === 401) status = 403;
  const message = status >= 500 ? (status === 504 ? "Gateway Timeout" : "Internal Server Error") : err.rawMessage;
  const reply = errorReply(family, status, message, err.metadata.get(ERROR_HEADER.errorType) ?? undefined);
  const retryAfter = Number(err.metadata.get(ERROR_HEADER.retryAfter));
  return status === 429 && retryAfter > 0 ? { ...reply, retryAfter } : reply;
}
