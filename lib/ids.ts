import type { Knex } from "./db.js";
import { randomBytes } from "node:crypto";

/**
 * Random bytes for ids, drawn from the system 4 KiB at a time: a call to the system per id was
 * most of an id's cost (7.5 us; the notifier makes one per delivery it queues). Secrets use
 * randomToken, which draws its own.
 */
let randomPool = Buffer.alloc(0);
let randomUsed = 0;

/** Where `n` fresh bytes of `randomPool` begin. */
function drawRandom(n: number): number {
  if (randomUsed + n > randomPool.length) {
    randomPool = randomBytes(4096);
    randomUsed = 0;
  }
  randomUsed += n;
  return randomUsed - n;
}

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
  const at = drawRandom(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += ALPHABET[randomPool[at + i] % 32];
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

/** The largest id a BIGINT column holds (signed int64). */
const MAX_ROW_ID = 2n ** 63n - 1n;

/**
 * The request's int64 id as a row's id, in a service whose rows hold ids as `bigint`: undefined
 * for an id no row can have (0, negative, beyond a BIGINT), which finds nothing.
 */
export function rowId(id: bigint): bigint | undefined {
  return id > 0n && id <= MAX_ROW_ID ? id : undefined;
}

/** An id to look a row up by: one no row can have becomes -1, which finds none (and is refused as missing). */
export function findableId(id: bigint): bigint {
  return rowId(id) ?? -1n;
}

/**
 * An id column of a row as read, in the contract's form: the drivers answer a BIGINT as a number
 * (mysql2: as decimal text beyond 2^53) and an insert's id as a number. A service whose rows hold
 * ids as `bigint` (the notifier; see docs/ids.md) reads each id column through this, once.
 */
export function readId(value: unknown): bigint {
  return BigInt(value as number | string);
}

/** An id column that may be NULL, as `readId` reads it. */
export function readIdOrNull(value: unknown): bigint | null {
  return value === null || value === undefined ? null : readId(value);
}

/** Orders two ids (a sort's comparator: `a - b` answers a bigint, which `Array.sort` refuses). */
export function compareIds(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A JSON.stringify replacer that writes a bigint id as a JSON number, as ids were written while
 * rows held numbers (JSON.stringify throws on a bigint otherwise).
 */
export function jsonIds(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? Number(value) : value;
}

/**
 * An id as a binding of a query that takes no object (`whereIn`, a comparison): both drivers bind
 * a bigint (lib/db.ts keeps their errors' codes), but knex's types leave it out of a binding's values.
 */
export function idBinding(id: bigint | number): Knex.Value {
  return id as unknown as Knex.Value;
}
