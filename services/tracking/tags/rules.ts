import type { JsonValue } from "@bufbuild/protobuf";
import { idsOfJson } from "../../../lib/json-ids.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { tagIdsInvalid, tagManagementAdminsOnly, tagNameBlank, tooManyIds } from "../errors.js";

/** A tag's name: trimmed, not blank (its length is the declared limit of the fields that carry it). */
export function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw tagNameBlank();
  return name;
}

/** Workspaces with "only admins may create tags" leave creating, renaming and deleting tags to admins. */
export function checkMayManageTags(scope: WorkspaceScope): void {
  if (scope.rules.onlyAdminsMayCreateTags && !scope.admin) throw tagManagementAdminsOnly();
}

/** Most tags one bulk delete names. */
export const MAX_BULK_DELETE_TAGS = 1000;

/** The ids of a bulk delete's body: a JSON array of tag ids. */
export function tagIdsOf(body: JsonValue | undefined): bigint[] {
  const read = idsOfJson(body, MAX_BULK_DELETE_TAGS);
  if ("ids" in read) return read.ids;
  throw read.invalid === "too_many" ? tooManyIds("tag_ids", MAX_BULK_DELETE_TAGS) : tagIdsInvalid();
}
