import { Readable } from "node:stream";
import contentDisposition from "content-disposition";
import { Code, ConnectError } from "@connectrpc/connect";
import type { FileChunk } from "../gen/gateway/v1/files_pb.js";
import type { FileRoute } from "./routes.js";

/**
 * File answers (a route's `file` declaration): the RPC streams FileChunk messages and the gateway
 * writes their bytes into the HTTP answer as they come. Nothing is answered until the first bytes
 * (or the end of an empty file), so what fails before them is the family's usual JSON error; once
 * they are out, a failure can only cut the answer short (the client sees an incomplete transfer).
 */

/**
 * `attachment; filename="..."`; a name beyond ASCII also as RFC 8187's `filename*` (UTF-8), its
 * `filename` then the name in ASCII (accents dropped, other characters `?`): header values
 * beyond ASCII are read differently by different clients.
 */
export function attachment(fileName: string): string {
  const ascii = fileName.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\x20-\x7e]/g, "?");
  return contentDisposition(fileName, { type: "attachment", fallback: ascii });
}

/** The file name a route declares, its `{field}`s filled with the request's values. */
export function declaredFileName(file: FileRoute, request: Record<string, unknown>): string {
  return file.fileName.replace(/\{([^}]*)\}/g, (_m, name: string) => String(request[file.nameFields.get(name)!.localName] ?? ""));
}

/**
 * One file answer's call: cancelled when the client goes away, and cut when the service keeps
 * the gateway waiting `stallMs` for a message (before the first bytes that is a 504). Only the
 * waits count, each on its own: a long file that keeps coming is never cut, nor one whose
 * client reads slowly.
 */
export class FileCall {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private waiting = false;
  private finished = false;
  /** The client went away (nothing to log: nobody waits for the answer). */
  cancelled = false;

  constructor(stallMs: number) {
    this.timer = setTimeout(() => {
      if (this.waiting) this.abort(new ConnectError("the service sent no file data in time", Code.DeadlineExceeded));
    }, stallMs);
  }

  /** For the RPC's options: aborted when the call is cut. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * The stream's next message, or the reason the call was cut: a cut ends the wait even when the
   * handler does not heed its signal. (Not a Promise.race with one promise of the cut: every race
   * would leave it a reaction holding its message, the whole file in the end.)
   */
  next(it: AsyncIterator<FileChunk>): Promise<IteratorResult<FileChunk>> {
    const { signal } = this.controller;
    if (signal.aborted) return Promise.reject(signal.reason);
    this.waiting = true;
    this.timer.refresh();
    return new Promise((resolve, reject) => {
      const cut = () => reject(signal.reason);
      signal.addEventListener("abort", cut, { once: true });
      it.next()
        .then(resolve, reject)
        .finally(() => {
          this.waiting = false;
          signal.removeEventListener("abort", cut);
        });
    });
  }

  /** The client went away: the service's call is cancelled (its handler is left). */
  cancel(): void {
    if (this.finished) return;
    this.cancelled = true;
    this.abort(new ConnectError("the client went away", Code.Canceled));
  }

  /** The answer is complete or failed: no timer is left behind. */
  finish(): void {
    this.finished = true;
    clearTimeout(this.timer);
  }

  private abort(reason: ConnectError): void {
    clearTimeout(this.timer);
    if (!this.finished && !this.controller.signal.aborted) this.controller.abort(reason);
  }
}

export interface OpenedFile {
  /** The name the stream gave before its first bytes, if any. */
  fileName?: string;
  /** The file's bytes: the first chunk and what follows as it comes, or an empty buffer. */
  body: Readable | Buffer;
}

const asBuffer = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/**
 * Reads a file answer's stream up to its first bytes: what fails until then throws here (the
 * caller answers the family's error). The body goes on reading the stream as the client takes it
 * (back-pressure: a slow client slows the service, nothing piles up); `failed` hears of a failure
 * after the first bytes, which ends the body with that error.
 */
export async function openFile(chunks: AsyncIterable<FileChunk>, call: FileCall, failed: (err: unknown) => void): Promise<OpenedFile> {
  const it = chunks[Symbol.asyncIterator]();
  let fileName: string | undefined;
  let first: Uint8Array | undefined;
  try {
    while (!first) {
      const next = await call.next(it);
      if (next.done) {
        call.finish();
        return { fileName, body: Buffer.alloc(0) };
      }
      if (next.value.fileName) fileName = next.value.fileName;
      if (next.value.data.byteLength > 0) first = next.value.data;
    }
  } catch (err) {
    call.finish();
    throw err;
  }
  async function* rest() {
    try {
      yield asBuffer(first!);
      for (let next = await call.next(it); !next.done; next = await call.next(it)) {
        if (next.value.data.byteLength > 0) yield asBuffer(next.value.data);
      }
    } catch (err) {
      failed(err);
      throw err;
    } finally {
      call.finish();
    }
  }
  return { fileName, body: Readable.from(rest(), { objectMode: false }) };
}
