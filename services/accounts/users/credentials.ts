import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { sha256Hex } from "../../../lib/digest.js";
import type { SecretBox } from "../../../lib/secret-box.js";
import type { StoredApiToken } from "./store.js";

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

/** scrypt cost: about 50 ms on one core; stored with each hash so it can be raised later. */
const COST = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...COST, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !key) return false;
  const expected = Buffer.from(key, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(actual, expected);
}

/** Tokens have 256 bits of entropy, so a fast hash is enough to store them. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

export function newApiToken(): string {
  return randomBytes(16).toString("hex");
}

/** An API token as the users table keeps it: hashed to authenticate by, sealed so its owner can read it back. */
export function storedApiToken(token: string, box: SecretBox): StoredApiToken {
  return { hash: hashToken(token), sealed: box.seal(token) };
}

export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

/** A password hash to compare against when the email is unknown, so timing does not tell. */
export const DUMMY_PASSWORD_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
