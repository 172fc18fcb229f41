import { assignmentEmpty, assignmentOperationInvalid, assignmentUserAndGroup, assignmentUserOrGroupMissing, organizationAdminNotRemovable, payingUserNotRemovable, workspaceOwnerNotRemovable, workspaceUserIdsMissing, workspaceUserIdsRepeated, workspaceMemberAdminAndRole, workspaceMemberChangeMissing, workspaceMemberRoleInvalid } from "../errors.js";
import type { OrganizationRow, OrganizationUserRow } from "../organizations/store.js";
import { isPaid } from "../organizations/plan.js";

/** The ids of a PATCH of workspace users: at least one, none twice. */
export function deletionIds(ids: bigint[]): bigint[] {
  if (ids.length === 0) throw workspaceUserIdsMissing();
  if (new Set(ids.map(String)).size !== ids.length) throw workspaceUserIdsRepeated();
  return ids;
}

/** What an assignment asks: a user or a group added to or removed from the workspace. */
export type Assignment = { operation: "add" | "remove" } & ({ userId: bigint; groupId?: undefined } | { groupId: bigint; userId?: undefined });

/** The assignment of a PUT .../assignments body, checked against the body alone. */
export function assignment(req: { operation?: string; userId?: bigint; groupId?: bigint; joined?: boolean }): Assignment {
  if (req.operation === undefined && req.userId === undefined && req.groupId === undefined && req.joined === undefined) throw assignmentEmpty();
  if (req.operation !== "add" && req.operation !== "remove") throw assignmentOperationInvalid();
  if (req.userId !== undefined && req.groupId !== undefined) throw assignmentUserAndGroup();
  if (req.userId !== undefined) return { operation: req.operation, userId: req.userId };
  if (req.groupId !== undefined) return { operation: req.operation, groupId: req.groupId };
  throw assignmentUserOrGroupMissing();
}

/**
 * Whether the organization user may be taken out of a workspace. The organization's owner owns
 * its workspaces, and pays for a paid organization (operators set plans; nobody else pays).
 */
export function checkUnassignable(organization: OrganizationRow, member: OrganizationUserRow): void {
  if (member.owner && isPaid(organization)) throw payingUserNotRemovable();
  if (member.owner) throw workspaceOwnerNotRemovable();
  if (member.admin) throw organizationAdminNotRemovable();
}

/** The workspace role ids PUT .../workspace_users/{id} takes: those of the organization roles admin and user. */
const WORKSPACE_ROLE_IDS: Readonly<Record<number, boolean>> = { 1: true, 2: false };

/** Whether a member change makes the member a workspace admin: `admin`, or `role_id` 1 (admin) / 2 (user), not both. */
export function memberAdminChange(req: { admin?: boolean; roleId?: bigint }): boolean {
  if (req.admin !== undefined && req.roleId !== undefined) throw workspaceMemberAdminAndRole();
  if (req.admin !== undefined) return req.admin;
  if (req.roleId === undefined) throw workspaceMemberChangeMissing();
  const admin = WORKSPACE_ROLE_IDS[Number(req.roleId)];
  if (admin === undefined) throw workspaceMemberRoleInvalid();
  return admin;
}
