import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { errorReply, familyOfPath } from "./errors.js";

/** Node's parser errors and the status each is answered with. */
function statusOf(code: string | undefined): number {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  return 400;
}

/** The request line's path, when the parser got that far: `GET /api/v9/me HTTP/1.1`. */
function pathOf(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const line = rawPacket.subarray(0, 8192).toString("latin1").split("\r\n", 1)[0];
  const m = /^[A-Z]+ (\/\S*) HTTP\/1\.[01]$/.exec(line);
  return m?.[1];
}

/**
 * Answers what Node's HTTP parser refuses before any route runs (a malformed request, headers
 * over 16 KiB, a request that did not arrive in time): in the API family's error format where
 * the request line shows the path, as plain text otherwise. Then the connection closes.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = statusOf(err.code);
  const reason = STATUS_CODES[status] ?? "Bad Request";
  const path = pathOf(err.rawPacket);
  const body = path ? JSON.stringify(errorReply(familyOfPath(path), status, reason).body) : reason;
  const type = path ? "application/json" : "text/plain; charset=utf-8";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: ${type}\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
