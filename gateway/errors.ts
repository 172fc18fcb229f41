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
  413: "PayloadTooLargeError",
  414: "UriTooLongError",
  415: "UnsupportedMediaTypeError",
  429: "RateLimitError",
  501: "UnimplementedError",
  503: "ServiceUnavailableError",
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
}

/** The error body of a family: hiring `{"error":{"type"}}`, time tracking a JSON string. */
export function errorReply(family: Family, status: number, message: string, type?: string): ErrorReply {
  if (family === Family.HIRING) {
    return { status, body: { error: { type: type ?? HIRING_TYPE_OF_STATUS[status] ?? (status >= 500 ? "InternalServerError" : "BadRequestError") } } };
  }
  return { status, body: message };
}

/** Turns a service's error into the family's HTTP answer; internal details never leave. */
export function replyForConnectError(family: Family, err: ConnectError): ErrorReply {
  const override = Number(err.metadata.get(ERROR_HEADER.httpStatus));
  let status = Number.isInteger(override) && override >= 400 && override < 600 ? override : STATUS_OF_CODE[err.code] ?? 500;
  // The time-tracking API answers failed authentication with 403.
  if (family === Family.TRACKING && status === 401) status = 403;
  const message = status >= 500 ? (status === 503 ? "Service Unavailable" : "Internal Server Error") : err.rawMessage;
  return errorReply(family, status, message, err.metadata.get(ERROR_HEADER.errorType) ?? undefined);
}
