import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { WorkspaceGroupSchema, type WorkspaceGroup } from "../../../gen/accounts/v1/groups_pb.js";
import { WorkspaceGroupService } from "../../../gen/accounts/v1/workspace_settings_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { AccountsKit } from "../kit.js";
import { memberWorkspaceScope } from "../access.js";
import { groupNameTaken, workspaceGroupNotFound } from "../errors.js";
import { groupName } from "../groups/rules.js";
import { groupNamed, groups, link, linked, unlink, type GroupRow } from "../groups/store.js";
import { organizations } from "../organizations/store.js";

function workspaceGroupMessage(group: GroupRow, workspaceId: bigint): WorkspaceGroup {
  return create(WorkspaceGroupSchema, { at: timestampFromDate(group.updated_at), id: group.id, name: group.name, workspaceId });
}

/** The group, when it is assigned to the workspace: only those are the workspace's to change. */
async function assignedGroup(trx: Knex.Transaction, organization: bigint, workspaceId: bigint, groupId: bigint): Promise<GroupRow> {
  const group = await groups.getForChange(trx, organization, groupId);
  if (!group || !(await linked(trx, group.id, "workspaces")).includes(workspaceId)) throw workspaceGroupNotFound();
  return group;
}

/**
 * The workspace-path groups: a workspace admin makes a group of the workspace's organization
 * assigned to the workspace, renames or deletes one assigned to it; the names follow the
 * organization's groups' rules (groups/rules.ts), unique in the organization.
 */
export function workspaceGroupHandlers({ storage, clock }: AccountsKit) {
  return (router: ConnectRouter) =>
    router.service(WorkspaceGroupService, {
      async createWorkspaceGroup(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        const name = groupName(req.name);
        const now = clock.now();
        const group = await storage.change(
          async (trx) => {
            // The organization's row first, as the organization's own group changes lock it.
            await organizations.getForChange(trx, workspace.organization_id, workspace.organization_id);
            if (await groupNamed(trx, workspace.organization_id, name)) throw groupNameTaken();
            const group = await groups.insert(trx, { organization_id: workspace.organization_id, name, created_at: now, updated_at: now });
            await link(trx, group.id, "workspaces", [workspace.id]);
            return group;
          },
          { onDuplicate: groupNameTaken },
        );
        return { group: workspaceGroupMessage(group, workspace.id) };
      },

      async updateWorkspaceGroup(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        const name = groupName(req.name);
        const now = clock.now();
        const group = await storage.change(
          async (trx) => {
            await organizations.getForChange(trx, workspace.organization_id, workspace.organization_id);
            const existing = await assignedGroup(trx, workspace.organization_id, workspace.id, req.groupId);
            if (await groupNamed(trx, workspace.organization_id, name, existing.id)) throw groupNameTaken();
            return groups.update(trx, existing, { name, updated_at: now });
          },
          { onDuplicate: groupNameTaken },
        );
        return { group: workspaceGroupMessage(group, workspace.id) };
      },

      async deleteWorkspaceGroup(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        await storage.change(async (trx) => {
          const existing = await assignedGroup(trx, workspace.organization_id, workspace.id, req.groupId);
          await unlink(trx, existing.id, "users");
          await unlink(trx, existing.id, "workspaces");
          await groups.delete(trx, existing);
        });
        return {};
      },
    });
}
