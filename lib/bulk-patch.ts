import { Code, ConnectError } from "@connectrpc/connect";
import type { JsonValue } from "@bufbuild/protobuf";
import { badRequest } from "./errors.js";
import { rowId } from "./ids.js";

/**
 * The bulk PATCH of the time-tracking API (projects, project users, time entries, tasks):
 * `PATCH .../<resource>/{ids}` with comma-separated ids and a JSON array of RFC 6902 operations
 * (`{op, path, value}`, op add/remove/replace, path one field like `/color`), applied to each id
 * on its own. The request as a whole is refused (400) for a malformed id list or operation;
 * otherwise each id succeeds or fails by itself and the answer is `{failure: [{id, message}],
 * success: [ids]}`. A resource declares its patchable paths and the id limit; the messages are
 * the real API's.
 */

export type PatchOp = "add" | "remove" | "replace";

/** One checked operation: `field` is the path without its slash; `value` is absent for remove. */
export interface PatchOperation {
  op: PatchOp;
  path: string;
  field: string;
  value: JsonValue | undefined;
}

/** What a resource allows on one path. */
export interface PatchablePath {
  /** The operations it takes (all three when omitted). */
  ops?: readonly PatchOp[];
  /** The message for a value this path does not take (e.g. "/manager expects a boolean"), else undefined. */
  check?: (value: JsonValue | undefined, op: PatchOp) => string | undefined;
}

export interface IdListOptions {
  /** Most ids in one request. */
  max: number;
  /** The message for an id that is not a positive integer ("Invalid value as user IDs", ...). */
  invalid: string;
}

/**
 * The path's comma-separated ids: each a positive integer below 2^53 (spaces around one are
 * allowed), repeats dropped (first position kept), at least one and at most `max`.
 */
export function parseIdList(raw: string, { max, invalid }: IdListOptions): bigint[] {
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.length === 1 && parts[0] === "") throw badRequest("PATCH expects at least one ID");
  const ids: bigint[] = [];
  const seen = new Set<bigint>();
  for (const part of parts) {
    if (!/^[0-9]{1,16}$/.test(part)) throw badRequest(invalid);
    const id = rowId(BigInt(part));
    if (id === undefined) throw badRequest(invalid);
    if (seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  if (ids.length > max) throw badRequest(`PATCH request is limited to ${max} entries at once`);
  return ids;
}

const PATH_FORMAT = /^\/[A-Za-z_][A-Za-z0-9_]*$/;

/** Most operations in one request. */
export const MAX_PATCH_OPERATIONS = 100;

/**
 * The body's operations, checked as a whole against the resource's patchable paths: a JSON
 * array ("Invalid JSON input" otherwise) of at least one operation ("No patchable fields
 * defined"), each with a known op ("Invalid op: x"), a path of one segment ("Invalid path format: x"),
 * that the resource patches ("Path not found: x") with that op ("Operation not supported (op path)"),
 * and a value the path takes (the path's own message).
 */
export function parsePatchOperations(body: JsonValue | undefined, paths: Readonly<Record<string, PatchablePath>>): PatchOperation[] {
  if (!Array.isArray(body)) throw badRequest("Invalid JSON input");
  if (body.length === 0) throw badRequest("No patchable fields defined");
  if (body.length > MAX_PATCH_OPERATIONS) throw badRequest(`PATCH request is limited to ${MAX_PATCH_OPERATIONS} operations at once`);
  return body.map((item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw badRequest("Invalid JSON input");
    const op = typeof item.op === "string" ? item.op.trim().toLowerCase() : "";
    if (op !== "add" && op !== "remove" && op !== "replace") throw badRequest(`Invalid op: ${typeof item.op === "string" ? item.op : ""}`);
    const path = typeof item.path === "string" ? item.path.trim() : "";
    if (!PATH_FORMAT.test(path)) throw badRequest(`Invalid path format: ${path}`);
    const field = path.slice(1);
    const rule = Object.hasOwn(paths, field) ? paths[field] : undefined;
    if (!rule) throw badRequest(`Path not found: ${path}`);
    if (rule.ops && !rule.ops.includes(op)) throw badRequest(`Operation not supported (${op} ${path})`);
    const value = op === "remove" ? undefined : item.value === undefined ? null : item.value;
    const message = rule.check?.(value, op);
    if (message) throw badRequest(message);
    return { op, path, field, value };
  });
}

export interface BulkPatchResult {
  success: bigint[];
  failure: { id: bigint; message: string }[];
}

/**
 * Applies `apply` to each id on its own (each its own change: a failure rolls back only that id).
 * An id whose change throws a client error (4xx: not found, a bad value for that row) is listed in
 * `failure` with the error's message; any other error (the database, a bug) ends the request.
 */
export async function applyEach(ids: readonly bigint[], apply: (id: bigint) => Promise<void>): Promise<BulkPatchResult> {
  const result: BulkPatchResult = { success: [], failure: [] };
  for (const id of ids) {
    try {
      await apply(id);
      result.success.push(id);
    } catch (err) {
      if (!(err instanceof ConnectError) || !CLIENT_CODES.has(err.code)) throw err;
      result.failure.push({ id, message: err.rawMessage });
    }
  }
  return result;
}

const CLIENT_CODES = new Set([Code.InvalidArgument, Code.NotFound, Code.PermissionDenied, Code.FailedPrecondition, Code.AlreadyExists]);

/** The usual value checks of patchable paths, each answering the real API's message. */
export const patchValue = {
  boolean: (path: string) => (v: JsonValue | undefined) => (typeof v === "boolean" ? undefined : `${path} expects a boolean`),
  nullableInteger: (path: string) => (v: JsonValue | undefined) =>
    v === undefined || v === null || (typeof v === "number" && Number.isSafeInteger(v)) ? undefined : `${path} expects an integer or null`,
  nullableNumber: (path: string) => (v: JsonValue | undefined) =>
    v === undefined || v === null || (typeof v === "number" && Number.isFinite(v)) ? undefined : `${path} expects a number or null`,
  string: (path: string) => (v: JsonValue | undefined, op: PatchOp) => (op === "remove" || typeof v === "string" ? undefined : `${path} expects a string`),
};
