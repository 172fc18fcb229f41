import { badRequest, forbidden } from "../../../lib/errors.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";

/** Longest tag name the service stores. */
export const MAX_TAG_NAME = 100;

/** A tag's name: trimmed, not blank, at most MAX_TAG_NAME characters. */
export function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest("tag name can't be blank");
  if ([...name].length > MAX_TAG_NAME) throw badRequest(`tag name can't be longer than ${MAX_TAG_NAME} characters`);
  return name;
}

export const tagNameTaken = (name: string) => () => badRequest(`a tag with the name '${name}' already exists`);

/** Workspaces with "only admins may create tags" leave creating, renaming and deleting tags to admins. */
export function checkMayManageTags(scope: WorkspaceScope): void {
  if (scope.rules.onlyAdminsMayCreateTags && !scope.admin) {
    throw forbidden("Only organization or workspace administrators may manage tags in this workspace.");
  }
}
