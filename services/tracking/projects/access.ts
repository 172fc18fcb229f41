import type { Client } from "@connectrpc/connect";
import type { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import type { Knex } from "../../../lib/db.js";
import { noAccess } from "../../../lib/errors.js";
import { idBinding } from "../../../lib/ids.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { projectGroups } from "../project-groups/store.js";
import { projectUsers } from "../project-users/store.js";
import { projects, type ProjectRow } from "./store.js";

/**
 * Who looks at a workspace's projects: admins see every project; other members see public ones
 * and the private ones they are a project user of, directly or through a group of the project.
 */
export interface Viewer {
  workspace: bigint;
  userId: bigint;
  admin: boolean;
  /** The viewer's groups that some project of the workspace has (empty for admins). */
  groupIds: bigint[];
}

/** The viewer of a scope; the groups are asked of accounts only when the workspace assigns groups to projects. */
export async function viewerOf(db: Knex, identity: Client<typeof IdentityService>, scope: WorkspaceScope): Promise<Viewer> {
  const viewer = { workspace: scope.workspaceId, userId: scope.userId, admin: scope.admin, groupIds: [] as bigint[] };
  if (scope.admin) return viewer;
  const assigned = await projectGroups.query(db, scope.workspaceId).first("id");
  if (!assigned) return viewer;
  const answer = await identity.resolveGroups({ workspaceId: scope.workspaceId });
  viewer.groupIds = answer.groups.filter((g) => g.userIds.includes(scope.userId)).map((g) => g.groupId);
  return viewer;
}

/** The ids of the projects the user is a project user of, as a subquery. */
export function projectsOfUsers(db: Knex, workspace: bigint, userIds: bigint[]): Knex.QueryBuilder {
  return projectUsers.query(db, workspace).whereIn("user_id", userIds.map(idBinding)).select("project_id");
}

/** The ids of the projects the groups are assigned to, as a subquery. */
export function projectsOfGroups(db: Knex, workspace: bigint, groupIds: bigint[]): Knex.QueryBuilder {
  return projectGroups.query(db, workspace).whereIn("group_id", groupIds.map(idBinding)).select("project_id");
}

/** Narrows a query of the workspace's projects to what the viewer may see. */
export function visibleTo(db: Knex, q: Knex.QueryBuilder, viewer: Viewer, alias = "projects"): Knex.QueryBuilder {
  if (viewer.admin) return q;
  return q.andWhere((w) => {
    w.where(`${alias}.is_private`, false).orWhereIn(`${alias}.id`, projectsOfUsers(db, viewer.workspace, [viewer.userId]));
    if (viewer.groupIds.length > 0) w.orWhereIn(`${alias}.id`, projectsOfGroups(db, viewer.workspace, viewer.groupIds));
  });
}

/** Whether the viewer may see the project (a public one is seen by every member). */
export async function canSee(db: Knex, viewer: Viewer, row: ProjectRow): Promise<boolean> {
  if (!row.is_private || viewer.admin) return true;
  const q = visibleTo(db, projects.query(db, viewer.workspace).andWhere("id", idBinding(row.id)), viewer);
  return (await q.first("id")) !== undefined;
}

/** Whether the user manages the project (a project user with `manager`). */
export async function isManager(db: Knex, workspace: bigint, projectId: bigint, userId: bigint): Promise<boolean> {
  return (await projectUsers.query(db, workspace).where({ project_id: projectId, user_id: userId, manager: true }).first("id")) !== undefined;
}

/**
 * Who changes a project, its tasks and its members (users and groups): workspace admins and the
 * project's managers; anyone else is 403.
 */
export async function checkMayManage(db: Knex, scope: WorkspaceScope, projectId: bigint): Promise<void> {
  if (scope.admin) return;
  if (!(await isManager(db, scope.workspaceId, projectId, scope.userId))) throw noAccess();
}
