import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * Blobs: bytes kept by key outside the databases (images). `FileBlobStore` keeps them as files
 * under one directory (BLOB_DIR, by default DATA_DIR/blobs); a deployment with several replicas
 * points BLOB_DIR at a volume they share. Another backend (an object store) implements the same
 * three calls.
 */
export interface BlobStore {
  /** Stores the bytes under the key, replacing what it held; resolves once they are durable. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** The bytes under the key, or undefined. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Removes the key; a missing key is no error. */
  delete(key: string): Promise<void>;
}

/** Keys are paths of lower-case letters, digits, `-` and `_` segments: never `..`, never absolute. */
const KEY = /^[a-z0-9_-]{1,100}(\/[a-z0-9_-]{1,100}){0,4}$/;

export function checkBlobKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid blob key ${JSON.stringify(key.slice(0, 120))}`);
  return key;
}

export class FileBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, checkBlobKey(key));
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Written aside, then renamed: a reader sees the old bytes or the new ones, never a part.
    const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temporary, data, { mode: 0o600, flush: true });
    await rename(temporary, path);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.path(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
