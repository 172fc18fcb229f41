import type { JsonValue } from "@bufbuild/protobuf";
import { groupNameMissing, groupWorkspaceFilterInvalid, invalidJson, patchOperationInvalid, patchPathInvalid, tooManyPatches, tooManyPatchValues } from "../errors.js";
import type { GroupPath } from "./store.js";
import { findableId } from "../../../lib/ids.js";

/** Most operations of one PATCH, and most ids in one operation's value. */
export const MAX_PATCHES = 50;
export const MAX_PATCH_VALUES = 1000;

/** A group's name as stored: trimmed, present (its length is the declared limit of the fields that carry it). */
export function groupName(raw: string): string {
  const name = raw.trim();
  if (name === "") throw groupNameMissing();
  return name;
}

/** Ids as the body gives them, each once, in the order given; one no row can have is kept (and refused later). */
export function idsOf(values: bigint[]): bigint[] {
  return [...new Set(values.map(findableId))];
}

/** The `workspace` query of the groups list: a whole number above 0, or none. */
export function workspaceFilter(raw: string): bigint | undefined {
  const text = raw.trim();
  if (text === "") return undefined;
  if (!/^\d{1,16}$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) throw groupWorkspaceFilterInvalid();
  return BigInt(text);
}

/** The first of `wanted` that is not among `found`. */
export function firstMissing(wanted: bigint[], found: bigint[]): bigint | undefined {
  const have = new Set(found);
  return wanted.find((id) => !have.has(id));
}

export type PatchOp = "add" | "remove" | "replace";

export interface Patch {
  op: PatchOp;
  path: GroupPath;
  ids: bigint[];
  /** The operation as sent, for the answer. */
  sent: { op: string; path: string; value: bigint[] };
}

/**
 * The operations of a PATCH (a JSON array of `{op, path, value}`), checked as a whole: known
 * operations (add, remove, replace) and paths (/users, /workspaces), integer ids, within the limits.
 */
export function patchesOf(body: JsonValue | undefined): Patch[] {
  if (!Array.isArray(body)) throw invalidJson();
  if (body.length > MAX_PATCHES) throw tooManyPatches(MAX_PATCHES);
  return body.map((item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw invalidJson();
    const rawOp = item.op ?? "";
    const rawPath = item.path ?? "";
    const rawValue = item.value ?? [];
    if (typeof rawOp !== "string" || typeof rawPath !== "string" || !Array.isArray(rawValue)) throw invalidJson();
    if (rawValue.some((v) => typeof v !== "number" || !Number.isInteger(v))) throw invalidJson();
    const op = rawOp.trim().toLowerCase();
    if (op !== "add" && op !== "remove" && op !== "replace") throw patchOperationInvalid();
    const path = rawPath.trim().toLowerCase();
    if (path !== "/users" && path !== "/workspaces") throw patchPathInvalid();
    if (rawValue.length > MAX_PATCH_VALUES) throw tooManyPatchValues(MAX_PATCH_VALUES);
    const value = (rawValue as number[]).map((v) => BigInt(v));
    return { op, path: path.slice(1) as GroupPath, ids: idsOf(value), sent: { op: rawOp, path: rawPath, value } };
  });
}
