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
 * The largest id the services hand out: a JSON number clients read exactly (2^53-1), the bound the
 * contract's id fields declare (`(gateway.v1.limits).max`).
 */
const MAX_ROW_ID = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The request's int64 id as a row's id: undefined for an id no row can have (0, negative, beyond
 * 2^53-1), which finds nothing (or is the caller's "Invalid ..." 400), never a neighbouring row.
 */
export function rowId(id: bigint): bigint | undefined {
  return id > 0n && id <= MAX_ROW_ID ? id : undefined;
}

/** The request's id as a row's id, or the caller's error (404, or 400 where the specification says "Invalid ..."). */
export function requireRowId(id: bigint, missing: () => Error): bigint {
  const row = rowId(id);
  if (row === undefined) throw missing();
  return row;
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

/** A JSON column's list of ids (as `jsonIds` writes them) in the contract's form: a table declaration's `json` reader. */
export function readIds(parsed: unknown): bigint[] {
  return (parsed as (number | string)[]).map(readId);
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
