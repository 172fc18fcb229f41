import { randomBytes, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../../../lib/digest.js";
import { badRequest } from "../../../lib/errors.js";
import { sortableId } from "../../../lib/ids.js";

/** Longest hiring workspace name. */
const MAX_WORKSPACE_NAME = 200;

/** A hiring workspace's name: trimmed, 1 to MAX_WORKSPACE_NAME characters. */
export function workspaceName(raw: string): string {
  const name = raw.trim();
  if (!name || name.length > MAX_WORKSPACE_NAME) throw badRequest(`name must be 1 to ${MAX_WORKSPACE_NAME} characters`);
  return name;
}

export function newWorkspaceId(): string {
  return `ws_${sortableId().toLowerCase()}`;
}

/**
 * An API key is `<key id>.<secret>`: the id finds the stored row, the secret is checked
 * against its SHA-256 in constant time. Only the hash is stored.
 */
export function newApiKey(): { id: string; key: string; secretHash: string } {
  const id = `key_${sortableId().toLowerCase()}`;
  const secret = randomBytes(32).toString("base64url");
  return { id, key: `${id}.${secret}`, secretHash: hashSecret(secret) };
}

function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

export function parseApiKey(key: string): { id: string; secret: string } | undefined {
  const dot = key.indexOf(".");
  if (dot <= 0 || dot === key.length - 1 || key.length > 200) return undefined;
  return { id: key.slice(0, dot), secret: key.slice(dot + 1) };
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const actual = Buffer.from(hashSecret(secret), "hex");
  const expected = Buffer.from(storedHash, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
