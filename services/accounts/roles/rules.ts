import type { JsonValue } from "@bufbuild/protobuf";
import { productInvalid, permissionIdInvalid, permissionsInvalid, roleCodeInvalid, roleCodeMissing, roleEntityInvalid, roleNameMissing } from "../errors.js";
import { rowId } from "../../../lib/ids.js";
import { permissionById, ROLE_ENTITIES, TRACK_PRODUCT_ID, type RoleEntity } from "./catalog.js";

/** The product of the path: only time tracking exists here. */
export function checkProduct(productId: bigint): void {
  if (productId !== BigInt(TRACK_PRODUCT_ID)) throw productInvalid();
}

/** A role's code: trimmed, lower-case letters, digits, `_` and `-` (the column holds 50). */
export function roleCode(raw: string): string {
  const code = raw.trim();
  if (!code) throw roleCodeMissing();
  if (!/^[a-z0-9_-]+$/.test(code)) throw roleCodeInvalid();
  return code;
}

export function roleName(raw: string): string {
  const name = raw.trim();
  if (!name) throw roleNameMissing();
  return name;
}

/** organization (when not given), workspace or project. */
export function roleEntity(raw: string | undefined): RoleEntity {
  const entity = (raw ?? "").trim();
  if (entity === "") return "organization";
  if (!(ROLE_ENTITIES as readonly string[]).includes(entity)) throw roleEntityInvalid(ROLE_ENTITIES);
  return entity as RoleEntity;
}

/** The permissions a PUT gives: catalog ids, each once, ascending. */
export function permissionIds(list: JsonValue[]): number[] {
  const ids = new Set<number>();
  for (const value of list) {
    if (typeof value !== "number" || !Number.isInteger(value)) throw permissionsInvalid();
    if (!permissionById(value)) throw permissionIdInvalid(value);
    ids.add(value);
  }
  return [...ids].sort((a, b) => a - b);
}

/** Ids given in a body: positive, safe, each once, in the order given. */
export function idsGiven(ids: readonly bigint[]): bigint[] {
  return [...new Set(ids.filter((id) => rowId(id) !== undefined))];
}
