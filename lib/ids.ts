import { randomBytes } from "node:crypto";

/**
 * A sortable unique id: 48 bits of milliseconds then 80 random bits, in Crockford base32
 * (the ULID layout). Event ids sort by creation time.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function sortableId(nowMs: number = Date.now()): string {
  let time = "";
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += ALPHABET[bytes[i] % 32];
  return time + rand;
}

/** A random secret, URL-safe. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/**
 * The storage id of a request's int64 id: positive and exactly representable as a JS number
 * (as knex reads BIGINT back). Anything else names no stored row, so it is undefined, never a
 * neighbouring row (`Number(9007199254740993n)` is 9007199254740992).
 */
export function storageId(id: bigint): number | undefined {
  return id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : undefined;
}

/** The storage id, or the caller's error (404, or 400 where the specification says "Invalid ..."). */
export function requireStorageId(id: bigint, missing: () => Error): number {
  const n = storageId(id);
  if (n === undefined) throw missing();
  return n;
}
