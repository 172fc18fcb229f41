import type { ConnectRouter } from "@connectrpc/connect";
import { ProjectGroupService } from "../../../gen/tracking/v1/project_groups_pb.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import { trackingScope } from "../scope.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { MAX_LIST_PROJECTS, queryIds } from "../project-users/rules.js";
import { checkMayManage } from "../projects/access.js";
import { invalidGroup, invalidProject, projectGroupNotFound, projectGroupTaken, projectIdsMissing } from "../errors.js";
import { projectGroupEvent, projectGroupMessage } from "./changes.js";
import { projectGroups, type ProjectGroupRow } from "./store.js";

export function projectGroupHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;
  return (router: ConnectRouter) =>
    router.service(ProjectGroupService, {
      async listProjectGroups(req, ctx) {
        const scope = trackingScope(ctx);
        const wanted = queryIds(req.projectIds, "project_ids", MAX_LIST_PROJECTS);
        if (wanted.length === 0) throw projectIdsMissing();
        const visible = visibleTo(db, projects.query(db, scope.workspaceId).whereNull("server_deleted_at").whereIn("id", wanted.map(idBinding)), scope.viewer).select("id");
        const rows: ProjectGroupRow[] = (await projectGroups.query(db, scope.workspaceId).whereIn("project_id", visible).orderBy("id")).map((raw: Record<string, unknown>) =>
          projectGroups.read(raw),
        );
        return { projectGroups: rows.map(projectGroupMessage) };
      },

      async createProjectGroup(req, ctx) {
        const scope = trackingScope(ctx);
        const project = await projects.getLive(db, scope.workspaceId, req.projectId);
        if (!project) throw invalidProject();
        await checkMayManage(db, scope, project.id);
        const groupId = rowId(req.groupId);
        if (groupId === undefined) throw invalidGroup();
        // The group must be one of the workspace's organization (the accounts service knows).
        const answer = await identity.resolveGroups({ workspaceId: scope.workspaceId, groupIds: [req.groupId] });
        if (!answer.groups.some((g) => g.groupId === req.groupId)) throw invalidGroup();
        const row = await storage.change(async (trx, emit) => {
          const created = await projectGroups.insert(trx, { workspace_id: scope.workspaceId, project_id: project.id, group_id: groupId, at: clock.now() });
          await emit(projectGroupEvent("created", created, scope));
          return created;
        }, { onDuplicate: projectGroupTaken });
        return { projectGroup: projectGroupMessage(row) };
      },

      async deleteProjectGroup(req, ctx) {
        const scope = trackingScope(ctx);
        await changeRow(storage, projectGroups, { scope: scope.workspaceId, id: req.projectGroupId, missing: projectGroupNotFound }, async (existing, trx, emit) => {
          await checkMayManage(trx, scope, existing.project_id);
          await projectGroups.delete(trx, existing);
          await emit(projectGroupEvent("deleted", existing, scope));
        });
        return {};
      },
    });
}
