import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { tagManagementAdminsOnly, tagNameBlank, tagNameTooLong } from "../errors.js";

/** Longest tag name the service stores. */
export const MAX_TAG_NAME = 100;

/** A tag's name: trimmed, not blank, at most MAX_TAG_NAME characters. */
export function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw tagNameBlank();
  if ([...name].length > MAX_TAG_NAME) throw tagNameTooLong(MAX_TAG_NAME);
  return name;
}

/** Workspaces with "only admins may create tags" leave creating, renaming and deleting tags to admins. */
export function checkMayManageTags(scope: WorkspaceScope): void {
  if (scope.rules.onlyAdminsMayCreateTags && !scope.admin) throw tagManagementAdminsOnly();
}
