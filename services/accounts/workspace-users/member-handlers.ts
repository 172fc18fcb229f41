import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { WorkspaceMemberService } from "../../../gen/accounts/v1/workspace_settings_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { Emit } from "../../../lib/storage.js";
import { rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { memberWorkspaceScope } from "../access.js";
import { workspaceMemberNotFound, workspaceUserNotAccessible, workspaceUserNotFound } from "../errors.js";
import { memberOf, organizations, userProfile, type MembershipRow } from "../organizations/store.js";
import { emitMemberships } from "./view.js";
import { checkUnassignable, memberAdminChange } from "./rules.js";
import { deleteMemberships, membershipByIdForChange, membershipForChange, setMembershipAdmin } from "./store.js";

/** One member of a workspace, changed or removed by the workspace's admins. */
export function workspaceMemberHandlers({ storage, clock }: AccountsKit) {
  /** Sets the membership's admin flag and emits `workspace_user updated` when it changed. */
  async function changeAdmin(trx: Knex.Transaction, emit: Emit, ctx: HandlerContext, membership: MembershipRow, admin: boolean) {
    if (membership.admin === admin) return;
    const changed = await setMembershipAdmin(trx, membership, admin);
    const { seen, userId } = memberWorkspaceScope(ctx);
    const member = await memberOf(trx, seen.workspace.organization_id, membership.user_id);
    if (member) await emitMemberships(emit, "updated", [changed], member, await userProfile(trx, membership.user_id), userId, clock.now());
  }

  return (router: ConnectRouter) =>
    router.service(WorkspaceMemberService, {
      async updateWorkspaceMemberByUser(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        const admin = memberAdminChange(req);
        const user = rowId(req.userId);
        await storage.change(async (trx, emit) => {
          const membership = user === undefined ? undefined : await membershipForChange(trx, workspace, user);
          if (!membership) throw workspaceMemberNotFound();
          await changeAdmin(trx, emit, ctx, membership, admin);
        });
        return {};
      },

      async updateWorkspaceMember(req, ctx) {
        const { workspace } = memberWorkspaceScope(ctx).seen;
        const admin = memberAdminChange(req);
        const id = rowId(req.workspaceUserId);
        await storage.change(async (trx, emit) => {
          const membership = id === undefined ? undefined : await membershipByIdForChange(trx, workspace, id);
          if (!membership) throw workspaceUserNotFound();
          await changeAdmin(trx, emit, ctx, membership, admin);
        });
        return {};
      },

      // As taking the user out through PUT /organizations/{id}/workspaces/{id}/assignments: the
      // organization's owner and admins stay in its workspaces.
      async deleteWorkspaceMember(req, ctx) {
        const { seen, userId } = memberWorkspaceScope(ctx);
        const id = rowId(req.workspaceUserId);
        await storage.change(async (trx, emit) => {
          const membership = id === undefined ? undefined : await membershipByIdForChange(trx, seen.workspace, id);
          if (!membership) throw workspaceUserNotAccessible();
          const organization = await organizations.getForChange(trx, seen.workspace.organization_id, seen.workspace.organization_id);
          const member = await memberOf(trx, seen.workspace.organization_id, membership.user_id);
          if (organization && member) checkUnassignable(organization, member);
          await deleteMemberships(trx, [membership]);
          if (member) await emitMemberships(emit, "deleted", [membership], member, await userProfile(trx, membership.user_id), userId, clock.now());
        });
        return {};
      },
    });
}
