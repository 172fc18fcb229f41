import { create, toJson } from "@bufbuild/protobuf";
import { ValueSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { GroupSchema, GroupService, WorkspaceGroupSchema, type Group, type WorkspaceGroup } from "../../../gen/accounts/v1/groups_pb.js";
import type { Knex } from "../../../lib/db.js";
import { badRequest } from "../../../lib/errors.js";
import { rowId } from "../../../lib/ids.js";
import { changeRow } from "../../../lib/resource-kit.js";
import type { AccountsKit } from "../kit.js";
import { groupNameTaken, groupNotFound, groupOrganizationNoAccess, resourceNotFound, userNotInOrganization, workspaceNotInOrganization } from "../errors.js";
import { memberWorkspaceScope, organizationScope } from "../access.js";
import { organizations } from "../organizations/store.js";
import { firstMissing, groupName, idsOf, patchesOf, type Patch, workspaceFilter } from "./rules.js";
import { groupNamed, groups, link, linked, listGroups, unlink, usersAmong, viewsOf, type GroupPath, type GroupRow, type GroupView } from "./store.js";
import { workspacesAmong } from "../organizations/store.js";

export function groupMessage({ group, users, workspaces }: GroupView): Group {
  return create(GroupSchema, {
    at: timestampFromDate(group.updated_at),
    groupId: group.id,
    name: group.name,
    users: users.map((u) => ({ avatarUrl: "", joined: u.joined, name: u.name, userId: u.user_id })),
    workspaces,
  });
}

function workspaceGroupMessage(group: GroupRow, workspaceId: bigint): WorkspaceGroup {
  return create(WorkspaceGroupSchema, { at: timestampFromDate(group.updated_at), id: group.id, name: group.name, workspaceId });
}

/** The ids refused on the path: the first that is no user (or workspace) of the organization, as the real API's message. */
async function refusal(db: Knex, organization: bigint, path: GroupPath, ids: bigint[]): Promise<string | undefined> {
  const found = path === "users" ? await usersAmong(db, organization, ids) : await workspacesAmong(db, organization, ids);
  const missing = firstMissing(ids, found);
  if (missing === undefined) return undefined;
  return path === "users" ? userNotInOrganization(missing, organization) : workspaceNotInOrganization(missing, organization);
}

async function checkMembers(db: Knex, organization: bigint, users: bigint[], workspaces: bigint[]) {
  for (const [path, ids] of [["users", users], ["workspaces", workspaces]] as const) {
    const message = await refusal(db, organization, path, ids);
    if (message) throw badRequest(message);
  }
}

async function viewOf(db: Knex, organization: bigint, group: GroupRow): Promise<Group> {
  return groupMessage((await viewsOf(db, organization, [group]))[0]);
}

/** An organization's groups (REST): organization admins change them, its members read them. */
export function groupHandlers({ storage, clock }: AccountsKit) {
  const { db } = storage;

  return (router: ConnectRouter) => {
    router.service(GroupService, {
      async listGroups(req, ctx) {
        const scope = organizationScope(ctx);
        const workspace = workspaceFilter(req.workspace);
        const organization = scope.organization.id;
        const rows = await listGroups(db, organization, { name: req.name.trim(), workspace });
        return { groups: (await viewsOf(db, organization, rows)).map(groupMessage) };
      },

      async createGroup(req, ctx) {
        const scope = organizationScope(ctx);
        const name = groupName(req.name);
        const users = idsOf(req.users);
        const workspaces = idsOf(req.workspaces);
        const now = clock.now();
        const group = await changeRow(
          storage,
          organizations,
          { scope: scope.organization.id, id: req.organizationId, missing: groupOrganizationNoAccess },
          async (organization, trx) => {
            if (await groupNamed(trx, organization.id, name)) throw groupNameTaken();
            await checkMembers(trx, organization.id, users, workspaces);
            const group = await groups.insert(trx, { organization_id: organization.id, name, created_at: now, updated_at: now });
            await link(trx, group.id, "users", users);
            await link(trx, group.id, "workspaces", workspaces);
            return viewOf(trx, organization.id, group);
          },
          { onDuplicate: groupNameTaken },
        );
        return { group };
      },

      async updateGroup(req, ctx) {
        const scope = organizationScope(ctx);
        const organization = scope.organization.id;
        const now = clock.now();
        const group = await changeRow(
          storage,
          groups,
          { scope: organization, id: req.groupId, missing: groupNotFound },
          async (existing, trx) => {
            const name = groupName(req.name);
            const users = idsOf(req.users);
            const workspaces = idsOf(req.workspaces);
            if (await groupNamed(trx, organization, name, existing.id)) throw groupNameTaken();
            await checkMembers(trx, organization, users, workspaces);
            const updated = await groups.update(trx, existing, { name, updated_at: now });
            for (const [path, ids] of [["users", users], ["workspaces", workspaces]] as const) {
              await unlink(trx, existing.id, path);
              await link(trx, existing.id, path, ids);
            }
            return viewOf(trx, organization, updated);
          },
          { onDuplicate: groupNameTaken },
        );
        return { group };
      },

      async deleteGroup(req, ctx) {
        const scope = organizationScope(ctx);
        await changeRow(storage, groups, { scope: scope.organization.id, id: req.groupId, missing: groupNotFound }, async (existing, trx) => {
          await unlink(trx, existing.id, "users");
          await unlink(trx, existing.id, "workspaces");
          await groups.delete(trx, existing);
        });
        return {};
      },

      async patchGroup(req, ctx) {
        const scope = organizationScope(ctx);
        const organization = scope.organization.id;
        const patches = patchesOf(req.patches ? toJson(ValueSchema, req.patches) : undefined);
        const now = clock.now();
        return changeRow(storage, groups, { scope: organization, id: req.groupId, missing: groupNotFound }, async (existing, trx) => {
          const failure: { message: string; patch: Patch["sent"] }[] = [];
          const success: Patch["sent"][] = [];
          for (const patch of patches) {
            const sent = patch.sent;
            const message = patch.op === "remove" ? undefined : await refusal(trx, organization, patch.path, patch.ids);
            if (message) {
              failure.push({ message, patch: sent });
              continue;
            }
            if (patch.op === "add") await link(trx, existing.id, patch.path, patch.ids);
            else if (patch.op === "remove") await unlink(trx, existing.id, patch.path, patch.ids);
            else {
              const keep = new Set(patch.ids);
              await unlink(trx, existing.id, patch.path, (await linked(trx, existing.id, patch.path)).filter((id) => !keep.has(id)));
              await link(trx, existing.id, patch.path, patch.ids);
            }
            success.push(sent);
          }
          if (success.length > 0) await groups.update(trx, existing, { updated_at: now });
          return { failure, success };
        });
      },

      async listOrganizationWorkspaceGroups(req, ctx) {
        const scope = organizationScope(ctx);
        const organization = scope.organization.id;
        const workspace = rowId(req.workspaceId);
        if (workspace === undefined || (await workspacesAmong(db, organization, [workspace])).length === 0) throw resourceNotFound();
        return { groups: (await viewsOf(db, organization, await listGroups(db, organization, { workspace }))).map(groupMessage) };
      },

      async listWorkspaceGroups(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        return { groups: (await listGroups(db, workspace.organization_id, { workspace: workspace.id })).map((g) => workspaceGroupMessage(g, workspace.id)) };
      },
    });
  };
}
