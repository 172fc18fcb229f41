import type { Readable } from "node:stream";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { FileChunkSchema } from "../../../../gen/gateway/v1/files_pb.js";

/**
 * How a writer's library output becomes the file's bytes at the reader's pace. The libraries
 * write into a Node stream and do not all heed back-pressure (pdfkit and exceljs push what they
 * make); so the writer awaits `pace()` after each row, which waits while the output is `behind`
 * (more than `PACE_LIMIT_BYTES` wait to be read, or the library's stream asks for a drain) until
 * the reader takes the next chunk, and every `PACE_ROWS` rows lets the event loop turn, so
 * that the libraries' asynchronous stages (exceljs's zip compression) keep up and their state
 * tells the truth. A reader that stops (the client went away) ends the writing: `pace()`
 * throws, the rows' iterator is returned (a query's cursor closes).
 */

/** Bytes made and not yet read beyond which the writer waits for the reader. */
export const PACE_LIMIT_BYTES = 256 * 1024;
/** Rows written between two turns of the event loop. */
export const PACE_ROWS = 64;

/** The file's bytes read from `out` while `write` fills it; `behind` says when the reader is too far behind. */
export async function* bytesOf(
  out: Readable,
  write: (pace: () => Promise<void> | void) => Promise<void>,
  behind: () => boolean = () => out.readableLength > PACE_LIMIT_BYTES,
): AsyncGenerator<Uint8Array> {
  let stopped = false;
  let wake: (() => void) | undefined;
  let rows = 0;
  const pace = (): Promise<void> | void => {
    if (stopped) throw new Error("the reader of the file went away");
    if (++rows % PACE_ROWS === 0) return new Promise<void>((resolve) => setImmediate(resolve)).then(check);
    return check();
  };
  const check = (): Promise<void> | void => {
    if (stopped) throw new Error("the reader of the file went away");
    if (!behind()) return;
    return new Promise<void>((resolve) => (wake = resolve)).then(check);
  };
  const writing = write(pace).catch((err: unknown) => {
    // The reader sees the failure where it reads: the stream ends with it.
    if (!stopped) out.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  try {
    for await (const chunk of out) {
      yield typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Uint8Array);
      wake?.();
      wake = undefined;
    }
  } finally {
    stopped = true;
    wake?.();
    out.destroy();
    await writing;
  }
}

/** Bytes gathered into messages of about this size: few messages, a small first wait. */
export const FILE_CHUNK_BYTES = 64 * 1024;

/**
 * A file's bytes as the FileChunk messages a file answer streams (gateway/v1/files.proto),
 * gathered into chunks of about `FILE_CHUNK_BYTES`; the first message carries `fileName` when
 * given (the name the answer's Content-Disposition gives the file).
 */
export async function* fileChunks(bytes: AsyncIterable<Uint8Array>, fileName = "", chunkBytes = FILE_CHUNK_BYTES): AsyncGenerator<MessageInitShape<typeof FileChunkSchema>> {
  let parts: Uint8Array[] = [];
  let length = 0;
  let name = fileName;
  for await (const part of bytes) {
    parts.push(part);
    length += part.byteLength;
    if (length >= chunkBytes) {
      // A part as large as a chunk (the CSV writer's) goes as it is.
      yield { data: parts.length === 1 ? parts[0] : Buffer.concat(parts, length), fileName: name };
      name = "";
      parts = [];
      length = 0;
    }
  }
  if (length > 0 || name) yield { data: Buffer.concat(parts, length), fileName: name };
}
