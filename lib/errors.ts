import { Code, ConnectError } from "@connectrpc/connect";

/** Error metadata the gateway reads: an HTTP status the Connect code cannot express, and the hiring error type. */
export const ERROR_HEADER = { httpStatus: "x-http-status", errorType: "x-error-type" } as const;

/** An error whose HTTP status the specification fixes (402 premium, 409 already stopped, ...). */
export function httpError(status: number, code: Code, message: string): ConnectError {
  return new ConnectError(message, code, { [ERROR_HEADER.httpStatus]: String(status) });
}

/** A hiring export API error with its `error.type`. */
export function typedError(code: Code, type: string, message = type): ConnectError {
  return new ConnectError(message, code, { [ERROR_HEADER.errorType]: type });
}

export const invalid = (message: string) => new ConnectError(message, Code.InvalidArgument);
export const notFound = (message: string) => new ConnectError(message, Code.NotFound);
export const forbidden = (message = "Forbidden") => new ConnectError(message, Code.PermissionDenied);

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
