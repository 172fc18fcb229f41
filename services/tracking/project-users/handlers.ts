import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ProjectUserSchema, ProjectUserService, type ProjectUser } from "../../../gen/tracking/v1/project_users_pb.js";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { applyEach, parseIdList, parsePatchOperations } from "../../../lib/bulk-patch.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { checkMayManage, projectsOfUsers, visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { projectGroups, type ProjectGroupRow } from "../project-groups/store.js";
import { INVALID_PROJECT_USER_IDS, invalidProject, invalidUser, projectUserChangeMissing, projectUserNotFound, projectUserTaken } from "../errors.js";
import { projectUserEvent, projectUserMessage } from "./changes.js";
import {
  applyChanges,
  checkPremiumRates,
  MAX_LIST_PROJECTS,
  MAX_PATCH_PROJECT_USERS,
  PATCHABLE_PATHS,
  patchChanges,
  queryIds,
  queryUserId,
  visibleRates,
  type ProjectUserChanges,
} from "./rules.js";
import { projectUsers, type ProjectUserRow } from "./store.js";

export function projectUserHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  /** The workspace's active members' ids (asked of the accounts service). */
  async function activeMembers(scope: TrackingScope): Promise<Set<bigint>> {
    const answer = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
    return new Set(answer.members.filter((m) => m.active).map((m) => m.userId));
  }

  /** Changes one project user (PUT and each id of a PATCH): its project must live, the caller manage it. */
  function changeProjectUser(scope: TrackingScope, id: bigint, changes: ProjectUserChanges, rateMode: string): Promise<ProjectUserRow> {
    return changeRow(storage, projectUsers, { scope: scope.workspaceId, id, missing: projectUserNotFound }, async (existing, trx, emit) => {
      if (!(await projects.getLive(trx, scope.workspaceId, existing.project_id))) throw invalidProject();
      await checkMayManage(trx, scope, existing.project_id);
      const updated = await projectUsers.update(trx, existing, applyChanges(existing, changes, rateMode, clock.now()));
      await emit(projectUserEvent("updated", updated, scope));
      return updated;
    });
  }

  /** Members who reach the listed projects only through a group assigned to them. */
  async function groupMembers(scope: TrackingScope, projectIds: Knex.QueryBuilder, direct: ProjectUserRow[]): Promise<ProjectUser[]> {
    const links: ProjectGroupRow[] = (await projectGroups.query(db, scope.workspaceId).whereIn("project_id", projectIds).orderBy("id")).map((raw: Record<string, unknown>) => projectGroups.read(raw));
    if (links.length === 0) return [];
    const answer = await identity.resolveGroups({ workspaceId: scope.workspaceId, groupIds: [...new Set(links.map((l) => l.group_id))] });
    const seen = new Set(direct.map((row) => `${row.project_id}:${row.user_id}`));
    const out: ProjectUser[] = [];
    for (const link of links) {
      const group = answer.groups.find((g) => g.groupId === link.group_id);
      for (const userId of group?.userIds ?? []) {
        const key = `${link.project_id}:${userId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(create(ProjectUserSchema, {
          workspaceId: scope.workspaceId,
          projectId: link.project_id,
          userId,
          manager: false,
          groupId: link.group_id,
          gid: link.group_id,
          at: timestampFromDate(link.at),
        }));
      }
    }
    return out;
  }

  return (router: ConnectRouter) =>
    router.service(ProjectUserService, {
      async listProjectUsers(req, ctx) {
        const scope = trackingScope(ctx);
        const wanted = queryIds(req.projectIds, "project_ids", MAX_LIST_PROJECTS);
        const userId = queryUserId(req.userId);
        // The live projects the caller may see, narrowed as the query asks.
        const visible = visibleTo(db, projects.query(db, scope.workspaceId).whereNull("server_deleted_at"), scope.viewer);
        if (wanted.length > 0) visible.whereIn("id", wanted.map(idBinding));
        if (userId !== undefined) visible.whereIn("id", projectsOfUsers(db, scope.workspaceId, [userId]));
        const ids = () => visible.clone().clearSelect().select("id");
        const rows: ProjectUserRow[] = (await projectUsers.query(db, scope.workspaceId).whereIn("project_id", ids()).orderBy("project_id").orderBy("id")).map((raw: Record<string, unknown>) =>
          projectUsers.read(raw),
        );
        const show = visibleRates(scope);
        const answer = rows.map((row) => projectUserMessage(row, show));
        if (req.withGroupMembers) answer.push(...(await groupMembers(scope, ids(), rows)));
        return { projectUsers: answer };
      },

      async createProjectUser(req, ctx) {
        const scope = trackingScope(ctx);
        const changes: ProjectUserChanges = { manager: req.manager ?? false, rate: req.rate, labour_cost: req.labourCost === undefined ? undefined : Number(req.labourCost) };
        checkPremiumRates(scope, changes, req.rateChangeMode);
        const project = await projects.getLive(db, scope.workspaceId, req.projectId);
        if (!project) throw invalidProject();
        await checkMayManage(db, scope, project.id);
        const userId = rowId(req.userId);
        if (userId === undefined || !(await activeMembers(scope)).has(userId)) throw invalidUser();
        if (changes.labour_cost === undefined && req.useLastLabourCost) changes.labour_cost = await lastLabourCost(db, scope.workspaceId, userId);
        const now = clock.now();
        const row = await storage.change(async (trx, emit) => {
          const created = await projectUsers.insert(trx, {
            workspace_id: scope.workspaceId,
            project_id: project.id,
            user_id: userId,
            manager: false,
            rate: null,
            labour_cost: null,
            rate_last_updated: null,
            labour_cost_last_updated: null,
            at: now,
            ...applyChanges(undefined, changes, req.rateChangeMode, now),
          });
          await emit(projectUserEvent("created", created, scope));
          return created;
        }, { onDuplicate: projectUserTaken });
        return { projectUser: projectUserMessage(row, visibleRates(scope)) };
      },

      async updateProjectUser(req, ctx) {
        const scope = trackingScope(ctx);
        const changes: ProjectUserChanges = { manager: req.manager, rate: req.rate, labour_cost: req.labourCost === undefined ? undefined : Number(req.labourCost) };
        if (changes.manager === undefined && changes.rate === undefined && changes.labour_cost === undefined) throw projectUserChangeMissing();
        checkPremiumRates(scope, changes, req.rateChangeMode);
        const row = await changeProjectUser(scope, req.projectUserId, changes, req.rateChangeMode);
        return { projectUser: projectUserMessage(row, visibleRates(scope)) };
      },

      async deleteProjectUser(req, ctx) {
        const scope = trackingScope(ctx);
        await changeRow(storage, projectUsers, { scope: scope.workspaceId, id: req.projectUserId, missing: projectUserNotFound }, async (existing, trx, emit) => {
          if (!(await projects.getLive(trx, scope.workspaceId, existing.project_id))) throw invalidProject();
          await checkMayManage(trx, scope, existing.project_id);
          await projectUsers.delete(trx, existing);
          await emit(projectUserEvent("deleted", existing, scope));
        });
        return {};
      },

      async patchProjectUsers(req, ctx) {
        const scope = trackingScope(ctx);
        const ids = parseIdList(req.projectUserIds, { max: MAX_PATCH_PROJECT_USERS, invalid: INVALID_PROJECT_USER_IDS });
        const operations = parsePatchOperations(req.patches ? toJson(ValueSchema, req.patches) : undefined, PATCHABLE_PATHS);
        const changes = patchChanges(operations);
        checkPremiumRates(scope, changes, "");
        const result = await applyEach(ids, async (id) => {
          await changeProjectUser(scope, id, changes, "");
        });
        return result;
      },
    });
}

/** The labour cost the user has most recently been given on a project of the workspace (`use_last_labour_cost`). */
async function lastLabourCost(db: Knex, workspace: bigint, userId: bigint): Promise<number | undefined> {
  const raw = await projectUsers.query(db, workspace).where("user_id", idBinding(userId)).whereNotNull("labour_cost").orderBy("labour_cost_last_updated", "desc").orderBy("id", "desc").first();
  return raw ? projectUsers.read(raw).labour_cost ?? undefined : undefined;
}
