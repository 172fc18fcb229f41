import { createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ZipFile } from "yazl";
import { randomToken } from "../../../lib/ids.js";

/**
 * The export files under EXPORT_DIR: one `<uuid>.zip` per finished export, written as
 * `<uuid>.<random>.partial` and renamed when whole, so a download never meets half a file, a job
 * taken again replaces the file it had (one file per job, ever), and a worker that lost its lease
 * and fails late removes its own partial file, never its successor's. A job's leftovers from a dead
 * worker are removed when it is taken again.
 */

/**
 * Deflate's fastest level: an export's JSON and CSV repeat themselves enough that it still packs
 * them about tenfold, at a fraction of the default level's CPU time.
 */
const COMPRESSION_LEVEL = 1;

/** One file of an archive: its name and, when its turn comes, its content as it is made. */
export interface ArchiveEntry {
  name: string;
  content: () => AsyncIterable<string | Uint8Array>;
}

/** A file of one JSON value (the lists: a workspace's projects, members ... are small). */
export const jsonEntry = (name: string, value: unknown): ArchiveEntry => ({
  name,
  content: async function* () {
    yield JSON.stringify(value);
  },
});

/** A stored export's absolute path (the stored name is never a path of its own). */
export const exportFile = (dir: string, stored: string) => join(dir, basename(stored));

async function* bytes(parts: AsyncIterable<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const part of parts) yield typeof part === "string" ? Buffer.from(part) : part;
}

/**
 * Writes the entries into `<dir>/<uuid>.zip`, streaming: each entry's content is made only when
 * yazl reaches it and written as it comes (never an entry, let alone the archive, whole in memory).
 * Answers the stored name. A failing entry fails the whole file (the partial one is removed).
 */
export async function writeArchive(dir: string, uuid: string, entries: Iterable<ArchiveEntry>, mtime: Date): Promise<string> {
  await mkdir(dir, { recursive: true });
  await removePartials(dir, uuid);
  const stored = `${uuid}.zip`;
  const partial = join(dir, `${uuid}.${randomToken(6)}.partial`);
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  // yazl reports failures as events; they end the output, which fails the pipeline below.
  zip.on("error", (err: Error) => output.destroy(err));
  for (const entry of entries) {
    zip.addReadStreamLazy(entry.name, { mtime, compressionLevel: COMPRESSION_LEVEL }, (done) => {
      const stream = Readable.from(bytes(entry.content()), { objectMode: false });
      stream.on("error", (err) => zip.emit("error", err));
      done(null, stream);
    });
  }
  zip.end();
  try {
    await pipeline(output, createWriteStream(partial));
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  await rename(partial, join(dir, stored));
  return stored;
}

/** Removes the partial files a job's earlier attempts left. */
async function removePartials(dir: string, uuid: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) if (name.startsWith(`${uuid}.`) && name.endsWith(".partial")) await rm(join(dir, name), { force: true });
}

/** Deletes an export's file (and any partial one); a file already gone is no failure. */
export async function removeExportFile(dir: string, uuid: string): Promise<void> {
  await rm(join(dir, `${uuid}.zip`), { force: true });
  await removePartials(dir, uuid);
}
