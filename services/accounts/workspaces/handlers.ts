import { findableId, readId } from "../../../lib/ids.js";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { WorkspaceService, WorkspaceStatisticsSchema, type WorkspaceStatistics } from "../../../gen/accounts/v1/workspaces_pb.js";
import { forbidden } from "../../../lib/errors.js";
import { requireUser } from "../../../lib/identity.js";
import type { Emit } from "../../../lib/storage.js";
import type { Knex } from "../../../lib/db.js";
import type { AccountsKit } from "../kit.js";
import { adminNotMember, constraintsWorkspaceMissing, multipleWorkspacesNotEnabled, organizationWorkspaceLimit, userWorkspaceLimit, workspaceAdminUnknown, workspaceNameNil, workspaceNameTaken } from "../errors.js";
import { emitMemberships } from "../workspace-users/view.js";
import { workspaceEvent, workspaceMessage } from "./view.js";
import { MAX_WORKSPACES_PER_USER, mayAct } from "../organizations/rules.js";
import { isPaid } from "../organizations/plan.js";
import { memberWorkspaceScope, organizationScope } from "../access.js";
import { defaultWorkspaceIfNone, insertMembership, insertWorkspace, memberOf, userProfile, workspaceCountForChange, type MembershipRow } from "../organizations/store.js";
import { checkPremiumSettings, settingChanges, workspaceSettings } from "./rules.js";
import {
  memberWorkspace,
  memberWorkspaces,
  nameTaken,
  statisticsOf,
  workspaceCountOfOrganization,
  workspaces,
  type MemberWorkspace,
  type WorkspaceRow,
  type WorkspaceStatisticsRow,
} from "./store.js";

function statisticsMessage(s: WorkspaceStatisticsRow): WorkspaceStatistics {
  return create(WorkspaceStatisticsSchema, {
    admins: s.admins.map((a) => ({ name: a.name, userId: a.user_id })),
    groupsCount: BigInt(s.groups),
    membersCount: BigInt(s.members),
  });
}

/** The caller's workspaces; a workspace's settings, statistics and constraints; new workspaces of an organization. */
export function workspaceHandlers({ storage, clock }: AccountsKit) {
  const { db } = storage;

  /** Makes the users (active members of the workspace) its admins; answers the memberships changed. */
  async function makeAdmins(trx: Knex.Transaction, emit: Emit, w: WorkspaceRow, userIds: bigint[], actor: bigint, now: Date) {
    for (const id of userIds) {
      const row = await trx("workspace_users").where({ workspace_id: w.id, user_id: id, active: true }).forUpdate().first();
      if (!row) throw adminNotMember();
      if (row.admin) continue;
      await trx("workspace_users").where({ id: row.id }).update({ admin: true, role: "admin" });
      const member = (await memberOf(trx, w.organization_id, id))!;
      const m: MembershipRow = { id: readId(row.id), workspace_id: w.id, workspace_name: w.name, user_id: id, admin: true, role: "admin", active: true };
      await emitMemberships(emit, "updated", [m], member, await userProfile(trx, id), actor, now);
    }
  }

  return (router: ConnectRouter) =>
    router.service(WorkspaceService, {
      async listWorkspaces(_req, ctx) {
        const rows = await memberWorkspaces(storage.db, requireUser(ctx));
        return { workspaces: rows.map(workspaceMessage) };
      },

      async getWorkspace(req, ctx) {
        const { seen } = memberWorkspaceScope(ctx);
        return { workspace: workspaceMessage(seen) };
      },

      async updateWorkspace(req, ctx) {
        const { userId, user, seen } = memberWorkspaceScope(ctx);
        const settings = workspaceSettings(req);
        const admins = [...new Set(req.admins.map(findableId))];
        const now = clock.now();
        await storage.change(async (trx, emit) => {
          const existing = await workspaces.getForChange(trx, seen.workspace.organization_id, req.workspaceId);
          if (!existing) throw forbidden();
          checkPremiumSettings(settings, seen.premium);
          if (settings.name !== undefined && (await nameTaken(trx, existing.organization_id, settings.name, existing.id))) throw workspaceNameTaken();
          await makeAdmins(trx, emit, existing, admins, userId, now);
          const changes: Partial<WorkspaceRow> = settingChanges(settings, existing);
          if (Object.keys(changes).length === 0) return;
          if ("default_hourly_rate" in changes) changes.rate_last_updated = now;
          const updated = await workspaces.update(trx, existing, { ...changes, updated_at: now });
          await emit(workspaceEvent("updated", { ...seen, workspace: updated }, userId));
        });
        return { workspace: workspaceMessage((await memberWorkspace(db, user, seen.workspace.id))!) };
      },

      async createWorkspace(req, ctx) {
        const scope = organizationScope(ctx);
        if (req.name === undefined) throw workspaceNameNil();
        const settings = workspaceSettings(req);
        const name = settings.name!;
        const organization = scope.organization;
        // A new workspace is as premium as its organization's plan.
        checkPremiumSettings(settings, isPaid(organization));
        const creator = scope.member.user_id;
        const admins = [...new Set(req.admins.map(findableId))].filter((id) => id !== creator);
        const now = clock.now();
        const created = await storage.change(async (trx, emit) => {
          const count = await workspaceCountOfOrganization(trx, organization.id);
          if (!isPaid(organization) && count >= 1) throw multipleWorkspacesNotEnabled();
          if (count >= organization.max_workspaces) throw organizationWorkspaceLimit();
          if (await nameTaken(trx, organization.id, name)) throw workspaceNameTaken();
          const members = [];
          for (const id of [creator, ...admins]) {
            const member = await memberOf(trx, organization.id, id);
            if (!member || !mayAct(member)) throw workspaceAdminUnknown();
            if ((await workspaceCountForChange(trx, id)) >= MAX_WORKSPACES_PER_USER) throw userWorkspaceLimit(MAX_WORKSPACES_PER_USER);
            members.push(member);
          }
          const id = await insertWorkspace(trx, organization.id, name, now);
          let workspace = (await workspaces.getForChange(trx, organization.id, id))!;
          const { name: _name, ...rest } = settings;
          if (Object.keys(rest).length > 0) workspace = await workspaces.update(trx, workspace, rest);
          const seen: MemberWorkspace = { workspace, admin: true, role: "admin", premium: isPaid(organization) };
          await emit(workspaceEvent("created", seen, scope.userId));
          for (const member of members) {
            const m = await insertMembership(trx, { workspace_id: id, user_id: member.user_id, admin: true, role: "admin", active: true }, name);
            await defaultWorkspaceIfNone(trx, member.user_id, id);
            await emitMemberships(emit, "created", [m], member, await userProfile(trx, member.user_id), scope.userId, now);
          }
          return seen;
        });
        return { workspace: workspaceMessage(created) };
      },

      async getWorkspaceStatistics(req, ctx) {
        const { seen } = memberWorkspaceScope(ctx);
        const stats = await statisticsOf(db, [seen.workspace.id]);
        return { statistics: statisticsMessage(stats.get(seen.workspace.id)!) };
      },

      async listOrganizationWorkspaceStatistics(req, ctx) {
        const scope = organizationScope(ctx);
        const ids = (await workspaces.list(db, scope.organization.id)).map((w) => w.id);
        const stats = await statisticsOf(db, ids);
        return { statistics: Object.fromEntries([...stats].map(([id, s]) => [String(id), statisticsMessage(s)])) };
      },

      async getTimeEntryConstraints(req, ctx) {
        const { seen } = memberWorkspaceScope(ctx);
        return { constraints: workspaceMessage(seen).teConstraints };
      },

      async setTimeEntryConstraints(req, ctx) {
        const { userId, seen } = memberWorkspaceScope(ctx);
        const wanted: Partial<WorkspaceRow> = {};
        if (req.descriptionPresent !== undefined) wanted.te_description_present = req.descriptionPresent;
        if (req.projectPresent !== undefined) wanted.te_project_present = req.projectPresent;
        if (req.tagPresent !== undefined) wanted.te_tag_present = req.tagPresent;
        if (req.taskPresent !== undefined) wanted.te_task_present = req.taskPresent;
        if (req.timeEntryConstraintsEnabled !== undefined) wanted.te_constraints_enabled = req.timeEntryConstraintsEnabled;
        const now = clock.now();
        await storage.change(async (trx, emit) => {
          const existing = await workspaces.getForChange(trx, seen.workspace.organization_id, req.workspaceId);
          if (!existing) throw constraintsWorkspaceMissing();
          const changes = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => existing[k as keyof WorkspaceRow] !== v)) as Partial<WorkspaceRow>;
          if (Object.keys(changes).length === 0) return;
          const updated = await workspaces.update(trx, existing, { ...changes, updated_at: now });
          await emit(workspaceEvent("updated", { ...seen, workspace: updated }, userId));
        });
        return { wid: seen.workspace.id };
      },
    });
}
