import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { errorReply, familyOfPath } from "./errors.js";

/**
 * How often Node looks for requests past their time (its connectionsCheckingInterval, 30 s by
 * default): a client is cut between its timeout and this much later, never before; a quarter
 * second at most, so that the README's 15 s stay 15 s.
 */
export function timeoutCheckingMs(t: { headersMs: number; requestMs: number }): number {
  return Math.max(10, Math.min(250, Math.floor(Math.min(t.headersMs, t.requestMs) / 20)));
}

/** Node's parser errors and the status each is answered with. */
function statusOf(code: string | undefined): number {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  return 400;
}

/** How much of a refused packet is read for its request line. */
const SCANNED = 8192;

/**
 * The request line's path, when the parser got that far: `GET /api/v9/me HTTP/1.1`. A request
 * line longer than what is read (a 24 KB URL, refused as headers over the limit) gives the part
 * read: its prefix is what tells the family.
 */
function pathOf(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const head = rawPacket.subarray(0, SCANNED).toString("latin1");
  const m = /^[A-Z]+ (\/[^\s]*)( HTTP\/1\.[01]\r?\n|$)/.exec(head);
  if (!m) return undefined;
  // A line cut short inside the path only counts when it is cut by the scan, not by the packet.
  return m[2] === "" && head.length < SCANNED ? undefined : m[1];
}

/**
 * The path of the request in progress on the socket, when its headers were read (a request whose
 * body did not arrive in time): Node's parser keeps the message it is reading on `incoming`.
 */
function pendingPath(socket: Socket): string | undefined {
  const url = (socket as Socket & { parser?: { incoming?: { url?: unknown } | null } }).parser?.incoming?.url;
  return typeof url === "string" && url.startsWith("/") ? url : undefined;
}

/**
 * Answers what Node's HTTP parser refuses before any route runs (a malformed request, headers
 * over 16 KiB, a request that did not arrive in time): in the API family's error format where
 * the request line shows the path (or the request's headers were read), as plain text otherwise.
 * Then the connection closes.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = statusOf(err.code);
  const reason = STATUS_CODES[status] ?? "Bad Request";
  const path = pathOf(err.rawPacket) ?? pendingPath(socket);
  const body = path ? JSON.stringify(errorReply(familyOfPath(path), status, reason).body) : reason;
  const type = path ? "application/json" : "text/plain; charset=utf-8";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: ${type}\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
