import { Readable } from "node:stream";
import { ConnectError } from "@connectrpc/connect";
import yauzl from "yauzl";
import { importFileInvalid } from "../errors.js";

/**
 * A ZIP archive read defensively (yauzl): every entry's name is checked (no absolute paths, no
 * `..`), its declared size is held against the limits before a byte is inflated, and the bytes
 * are counted while inflating, so an archive that lies about its sizes is stopped at the limit too.
 */

export const ARCHIVE_LIMITS = {
  /** The most one entry may hold, inflated. */
  entryBytes: 256 * 1024 * 1024,
  /** The most every entry together may hold, inflated. */
  totalBytes: 1024 * 1024 * 1024,
  /** An entry far larger than its compressed bytes (a ZIP bomb): refused past this ratio once over `ratioFloor`. */
  ratio: 1000,
  ratioFloor: 1024 * 1024,
  entries: 100_000,
};

export interface ArchiveEntry {
  name: string;
  size: number;
}

export interface Archive {
  /** Every file entry (directories left out), in the archive's order. */
  entries: ArchiveEntry[];
  /** The bytes of a file entry, inflated and counted. */
  read(name: string): Promise<Buffer>;
  /** The bytes of a file entry as they inflate, counted (a large CSV is never whole in memory). */
  stream(name: string): Readable;
  close(): void;
}

/** True when the bytes start as a ZIP archive does (a local header, or the end record of an empty one). */
export const looksLikeZip = (head: Uint8Array) => head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));

/** Why an entry's name is unsafe, if it is. */
export function unsafeName(name: string): string | undefined {
  if (name.includes("\\")) return "a backslash in its name";
  if (name.startsWith("/") || /^[a-zA-Z]:/.test(name)) return "an absolute path";
  if (name.split("/").includes("..")) return "a path that leaves the archive (..)";
  if (name.includes("\u0000")) return "a NUL in its name";
  return undefined;
}

const open = (data: Buffer) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    // Names are decoded and checked here (unsafeName), so that the refusal names the entry.
    yauzl.fromBuffer(data, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );

/** Opens the archive `file` (its bytes), checking every entry's name and declared size; a fault refuses it naming the entry. */
export async function openArchive(file: string, data: Buffer, limits = ARCHIVE_LIMITS): Promise<Archive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await open(data);
  } catch (err) {
    throw importFileInvalid(file, `not a ZIP archive (${(err as Error).message})`);
  }
  const found = new Map<string, yauzl.Entry>();
  const nameOf = (entry: yauzl.Entry) => yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", (err: Error) => reject(importFileInvalid(file, `damaged ZIP archive (${err.message})`)));
      zip.on("end", () => resolve());
      zip.on("entry", (entry: yauzl.Entry) => {
        const name = nameOf(entry);
        const where = `${file}: ${JSON.stringify(name)}`;
        const unsafe = unsafeName(name);
        if (unsafe) return reject(importFileInvalid(where, `refused: ${unsafe}`));
        if (found.size >= limits.entries) return reject(importFileInvalid(file, `more than ${limits.entries} entries`));
        if (!name.endsWith("/")) {
          const size = entry.uncompressedSize;
          if (size > limits.entryBytes) return reject(importFileInvalid(where, `refused: ${size} bytes inflated, over the limit of ${limits.entryBytes}`));
          if (size > limits.ratioFloor && size > entry.compressedSize * limits.ratio) return reject(importFileInvalid(where, `refused: ${size} bytes inflated from ${entry.compressedSize}, far larger than the archive (a ZIP bomb)`));
          total += size;
          if (total > limits.totalBytes) return reject(importFileInvalid(file, `refused: over ${limits.totalBytes} bytes inflated in all`));
          if (found.has(name)) return reject(importFileInvalid(where, "refused: the name is in the archive twice"));
          found.set(name, entry);
        }
        zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (err) {
    zip.close();
    throw err;
  }
  return {
    entries: [...found].map(([name, e]) => ({ name, size: e.uncompressedSize })),
    read: async (name) => {
      const chunks: Buffer[] = [];
      for await (const chunk of inflate(zip, found.get(name)!, `${file}: ${JSON.stringify(name)}`, limits)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    stream: (name) => Readable.from(inflate(zip, found.get(name)!, `${file}: ${JSON.stringify(name)}`, limits)),
    close: () => zip.close(),
  };
}

/** An entry's bytes as they inflate, counted: past its declared size or the limit, refused. */
async function* inflate(zip: yauzl.ZipFile, entry: yauzl.Entry, where: string, limits: typeof ARCHIVE_LIMITS): AsyncGenerator<Buffer> {
  const most = Math.min(entry.uncompressedSize, limits.entryBytes);
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err ? reject(importFileInvalid(where, `damaged entry (${err.message})`)) : resolve(s))),
  );
  let count = 0;
  try {
    for await (const chunk of stream) {
      count += (chunk as Buffer).length;
      if (count > most) throw importFileInvalid(where, `refused: inflates past its declared ${entry.uncompressedSize} bytes`);
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof ConnectError) throw err;
    throw importFileInvalid(where, `damaged entry (${(err as Error).message})`);
  } finally {
    stream.destroy();
  }
}
