import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { tagManagementAdminsOnly, tagNameBlank } from "../errors.js";

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
