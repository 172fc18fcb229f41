import type { ConnectRouter } from "@connectrpc/connect";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import type { AccountsKit } from "../kit.js";
import { userNotFound, workspaceNotFound } from "../errors.js";
import { AccountsStore } from "../users/store.js";
import { groups, groupsOfUsers, viewsOf } from "../groups/store.js";
import { workspaceById, workspaceMembers } from "../workspace-users/store.js";
import { organizations } from "../organizations/store.js";
import { pricingPlan } from "../organizations/plan.js";
import { changeRow } from "../../../lib/resource-kit.js";
import { dbDate } from "../../../lib/db.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";

/** The internal questions about callers: who they are, where they may act; and the plan operators set (the workspace's organization's). */
export function identityHandlers({ storage, clock, auth }: AccountsKit) {
  const store = new AccountsStore(storage.db);
  return (router: ConnectRouter) => {
    router.service(IdentityService, {
      async authenticate(req) {
        return { userId: await auth.authenticate(req.username, req.password, req.sessionToken) };
      },

      async checkWorkspaceAccess(req) {
        const userId = rowId(req.userId);
        const workspaceId = rowId(req.workspaceId);
        const row = userId && workspaceId ? await store.workspaceAccess(userId, workspaceId) : undefined;
        if (!row) return { allowed: false };
        return {
          allowed: true,
          admin: Boolean(row.admin),
          organizationId: row.organization_id,
          premium: Boolean(row.premium),
          role: row.role,
          rules: {
            onlyAdminsMayCreateProjects: Boolean(row.only_admins_may_create_projects),
            onlyAdminsMayCreateTags: Boolean(row.only_admins_may_create_tags),
            onlyAdminsSeeBillableRates: Boolean(row.only_admins_see_billable_rates),
            projectsBillableByDefault: Boolean(row.projects_billable_by_default),
            projectsPrivateByDefault: Boolean(row.projects_private_by_default),
            projectsEnforceBillable: Boolean(row.projects_enforce_billable),
            defaultCurrency: String(row.default_currency),
            defaultHourlyRate: Number(row.default_hourly_rate),
            constraintsEnabled: Boolean(row.te_constraints_enabled),
            descriptionPresent: Boolean(row.te_description_present),
            projectPresent: Boolean(row.te_project_present),
            tagPresent: Boolean(row.te_tag_present),
            taskPresent: Boolean(row.te_task_present),
            timeEntriesLockedBefore: row.report_locked_at ? timestampFromDate(dbDate(row.report_locked_at as Date)) : undefined,
          },
        };
      },

      async listWorkspaceMembers(req) {
        const workspaceId = rowId(req.workspaceId);
        const workspace = workspaceId ? await workspaceById(storage.db, workspaceId) : undefined;
        if (!workspace) return { members: [] };
        const members = await workspaceMembers(storage.db, workspace);
        const groupsOf = await groupsOfUsers(storage.db, workspace.organization_id, members.map((m) => m.membership.user_id));
        return {
          members: members.map(({ membership, member, profile, beginningOfWeek }) => ({
            userId: membership.user_id,
            email: profile.email,
            fullname: profile.fullname,
            timezone: profile.timezone,
            beginningOfWeek,
            active: membership.active,
            admin: membership.admin,
            role: membership.role,
            groupIds: (groupsOf.get(membership.user_id) ?? []).map(BigInt),
            rate: member?.rate ?? undefined,
          })),
        };
      },

      async resolveGroups(req) {
        const workspaceId = rowId(req.workspaceId);
        const workspace = workspaceId ? await workspaceById(storage.db, workspaceId) : undefined;
        if (!workspace) return { groups: [] };
        const ids = req.groupIds.map(rowId).filter((id): id is bigint => id !== undefined);
        const org = workspace.organization_id;
        const rows =
          req.groupIds.length === 0
            ? await groups.list(storage.db, org)
            : (await groups.query(storage.db, org).whereIn("id", ids.map(idBinding)).orderByRaw("LOWER(name)").orderBy("id")).map((raw: Record<string, unknown>) => groups.read(raw));
        const views = await viewsOf(storage.db, org, rows);
        return {
          groups: views.map((v) => ({
            groupId: v.group.id,
            name: v.group.name,
            userIds: v.users.map((u) => u.user_id),
            workspaceIds: v.workspaces.map(BigInt),
          })),
        };
      },

      async getUserProfile(req) {
        const userId = rowId(req.userId);
        const user = userId ? await store.userById(userId) : undefined;
        if (!user || user.closed_at) throw userNotFound(req.userId);
        return {
          userId: user.id,
          email: user.email,
          fullname: user.fullname,
          timezone: user.timezone || "UTC",
          defaultWorkspaceId: user.default_workspace_id ?? 0n,
          beginningOfWeek: user.beginning_of_week,
        };
      },

      async listUserWorkspaces(req) {
        const userId = rowId(req.userId);
        return { workspaceIds: userId ? (await store.activeWorkspaceIds(userId)).map(BigInt) : [] };
      },

      async setWorkspacePlan(req) {
        const missing = () => workspaceNotFound(req.workspaceId);
        const workspaceId = rowId(req.workspaceId);
        const workspace = workspaceId ? await workspaceById(storage.db, workspaceId) : undefined;
        if (!workspace) throw missing();
        // The plan is the organization's: a premium workspace is one of a paid organization.
        await changeRow(storage, organizations, { scope: workspace.organization_id, id: workspace.organization_id, missing }, (existing, trx) =>
          organizations.update(trx, existing, { pricing_plan_id: pricingPlan(req.premium), updated_at: clock.now() }),
        );
        return {};
      },
    });
  };
}
