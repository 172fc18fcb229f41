import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { WorkspaceUser } from "../../../gen/accounts/v1/organizations_pb.js";
import { SimpleWorkspaceUserSchema, WorkspaceUserService, type SimpleWorkspaceUser } from "../../../gen/accounts/v1/workspace_users_pb.js";
import { forbidden } from "../../../lib/errors.js";
import { rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { assignmentGroupInvalid, assignmentUserInvalid, assignmentWorkspaceInvalid, resourceNotFound, wrongWorkspaceUserIds } from "../errors.js";
import { emitMemberships, workspaceUserMessage } from "./view.js";
import { mayAct } from "../organizations/rules.js";
import { memberWorkspaceScope, organizationScope } from "../access.js";
import { defaultWorkspaceIfNone, insertMembership, memberForChange, memberOf, userProfile } from "../organizations/store.js";
import { workspaces, type WorkspaceRow } from "../workspaces/store.js";
import { assignToWorkspace, groups } from "../groups/store.js";
import { assignment, checkUnassignable, deletionIds } from "./rules.js";
import { deleteMemberships, membershipForChange, membershipsForChange, workspaceMembers, type WorkspaceMember } from "./store.js";


/** A workspace member as the lists answer it; `at` is the membership's last change known (its organization user's). */
function listedWorkspaceUser({ membership: m, member, profile }: WorkspaceMember, workspace: WorkspaceRow): WorkspaceUser {
  return workspaceUserMessage(m, member, profile, member?.updated_at ?? member?.created_at ?? workspace.updated_at);
}

function simpleUserMessage({ membership: m, member, profile }: WorkspaceMember): SimpleWorkspaceUser {
  return create(SimpleWorkspaceUserSchema, {
    id: m.user_id,
    email: profile.email,
    fullname: profile.fullname,
    inactive: member?.inactive ?? false,
    isActive: m.active,
    isAdmin: m.admin,
    role: m.role,
  });
}

/** Workspace members: the members' lists, and the organization admins' list, removal and assignments. */
export function workspaceUserHandlers({ storage, clock }: AccountsKit) {
  const { db } = storage;

  return (router: ConnectRouter) => {
    router.service(WorkspaceUserService, {
      async listWorkspaceUsers(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        return { workspaceUsers: (await workspaceMembers(db, workspace)).map((m) => listedWorkspaceUser(m, workspace)) };
      },

      async listWorkspaceSimpleUsers(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        return { users: (await workspaceMembers(db, workspace)).map(simpleUserMessage) };
      },

      async listOrganizationWorkspaceUsers(req, ctx) {
        const scope = organizationScope(ctx);
        const workspace = await workspaces.get(db, scope.organization.id, req.workspaceId);
        if (!workspace) throw resourceNotFound();
        return { workspaceUsers: (await workspaceMembers(db, workspace, req.name)).map((m) => listedWorkspaceUser(m, workspace)) };
      },

      async patchOrganizationWorkspaceUsers(req, ctx) {
        const scope = organizationScope(ctx);
        const ids = deletionIds(req.delete);
        const now = clock.now();
        await storage.change(async (trx, emit) => {
          const workspace = await workspaces.getForChange(trx, scope.organization.id, req.workspaceId);
          if (!workspace) throw forbidden();
          const found = await membershipsForChange(trx, workspace, ids.map(rowId).filter((id) => id !== undefined));
          if (found.length !== ids.length) throw wrongWorkspaceUserIds();
          await deleteMemberships(trx, found);
          for (const m of found) {
            const member = await memberOf(trx, workspace.organization_id, m.user_id);
            if (member) await emitMemberships(emit, "deleted", [m], member, await userProfile(trx, m.user_id), scope.userId, now);
          }
        });
        return {};
      },

      async changeAssignments(req, ctx) {
        const scope = organizationScope(ctx);
        const wanted = assignment(req);
        const now = clock.now();
        await storage.change(async (trx, emit) => {
          const workspace = await workspaces.getForChange(trx, scope.organization.id, req.workspaceId);
          if (!workspace) throw assignmentWorkspaceInvalid();
          if (wanted.groupId !== undefined) {
            const group = await groups.getForChange(trx, scope.organization.id, wanted.groupId);
            if (!group) throw assignmentGroupInvalid();
            await assignToWorkspace(trx, group, workspace.id, wanted.operation, now);
            return;
          }
          const user = rowId(wanted.userId);
          const member = user === undefined ? undefined : await memberForChange(trx, scope.organization.id, user);
          if (!member) throw assignmentUserInvalid();
          const existing = await membershipForChange(trx, workspace, member.user_id);
          const profile = await userProfile(trx, member.user_id);
          if (wanted.operation === "add") {
            if (existing) return;
            const active = mayAct(member);
            const created = await insertMembership(trx, { workspace_id: workspace.id, user_id: member.user_id, admin: false, role: "user", active }, workspace.name);
            if (active) await defaultWorkspaceIfNone(trx, member.user_id, workspace.id);
            await emitMemberships(emit, "created", [created], member, profile, scope.userId, now);
          } else {
            checkUnassignable(scope.organization, member);
            if (!existing) return;
            await deleteMemberships(trx, [existing]);
            await emitMemberships(emit, "deleted", [existing], member, profile, scope.userId, now);
          }
        });
        return {};
      },
    });
  };
}
