import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import {
  ReportClientFilterSchema,
  ReportFilterService,
  ReportProjectFilterSchema,
  ReportProjectGroupFilterSchema,
  ReportProjectStatusFilterSchema,
  ReportProjectUserFilterSchema,
  ReportTaskFilterSchema,
  ReportTaskStatusFilterSchema,
  ReportUserFilterSchema,
  type ReportClientFilter,
  type ReportProjectFilter,
  type ReportUserFilter,
} from "../../../gen/tracking/v1/report_filters_pb.js";
import type { Knex } from "../../../lib/db.js";
import { compareIds, idBinding, rowId } from "../../../lib/ids.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { summaryProjectIdInvalid, summaryProjectNotAccessible } from "../errors.js";
import { clientMessage } from "../clients/view.js";
import { clients } from "../clients/store.js";
import { visibleRates } from "../project-users/rules.js";
import { currencyCode } from "../projects/rules.js";
import { projects, type ProjectRow } from "../projects/store.js";
import type { TaskRow } from "../tasks/store.js";
import { projectMessages } from "../projects/view.js";
import { knownZone, zonedTime } from "../time-entries/rules.js";
import { trackedSeconds } from "../time-entries/project-link.js";
import { trackingScope, type TrackingScope } from "../scope.js";
import { DEFAULT_PAGE_SIZE, MAX_POSTED_USER_IDS, cursorOf, pageSize, postedIds, reportRange } from "./rules.js";
import { checkSomeGiven, nextDay, offsetSpans, type ReportRange } from "../reporting.js";
import {
  clientPage,
  projectGroupPage,
  projectPage,
  projectSecondsByDay,
  projectUserPage,
  secondsByProjectUser,
  taskPage,
  trackedByRate,
  visibleProject,
  visibleProjects,
  visibleTasks,
  type ProjectFilter,
} from "./store.js";
import { projectSummary } from "./summary.js";
import { filterClient, filterProject, filterProjectGroup, filterProjectUser, filterUser, reportTask, searchUser, trackedStatus } from "./view.js";

/** A body's id list as a filter: undefined when it names none (no filter), else its row ids (perhaps none: nothing matches). */
function idFilter(ids: readonly bigint[], max?: number): bigint[] | undefined {
  const valid = postedIds(ids, max);
  return ids.length === 0 ? undefined : valid;
}

/** The workspace's currency for projects without their own. */
const workspaceCurrency = (scope: TrackingScope) => scope.rules.defaultCurrency || "USD";

export function reportFilterHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  function clientsOf(scope: TrackingScope, f: ReportClientFilter) {
    return clientPage(db, scope.workspaceId, { ids: idFilter(f.ids), name: f.name }, { from: cursorOf(f.start), limit: DEFAULT_PAGE_SIZE });
  }

  function projectsOf(scope: TrackingScope, f: ReportProjectFilter) {
    const filter: ProjectFilter = {
      ids: idFilter(f.ids),
      clientIds: idFilter(f.clientIds),
      // As in the v9 list, a 0 among the client ids stands for projects without a client.
      noClient: f.clientIds.includes(0n),
      currency: f.currency?.trim() ? { code: currencyCode(f.currency), workspaceDefault: workspaceCurrency(scope) } : undefined,
      active: f.isActive,
      billable: f.isBillable,
      private: f.isPrivate,
      name: f.name,
    };
    return projectPage(db, scope.viewer, filter, { from: cursorOf(f.start), limit: pageSize(f.pageSize) });
  }

  /** The workspace's members the filter names, in id order from its cursor (active ones unless `active` is false). */
  async function membersOf(scope: TrackingScope, f: ReportUserFilter): Promise<WorkspaceMember[]> {
    const ids = idFilter(f.ids, MAX_POSTED_USER_IDS);
    const active = f.active ?? true;
    const from = cursorOf(f.start);
    const { members } = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
    return members
      .filter((m) => m.active === active && m.userId >= from && (!ids || ids.includes(m.userId)))
      .sort((a, b) => compareIds(a.userId, b.userId))
      .slice(0, DEFAULT_PAGE_SIZE);
  }

  /** The statuses of projects or tasks: tracked time per rate, amounts where the caller sees rates. */
  async function statuses(scope: TrackingScope, by: "project_id" | "task_id", subjects: { id: bigint; project: ProjectRow | undefined; estimatedSeconds: number | null }[]) {
    const tracked = await trackedByRate(db, scope.viewer, by, subjects.map((s) => s.id), scope.rules.defaultHourlyRate);
    const showAmounts = visibleRates(scope).rate;
    return subjects.map((s) =>
      trackedStatus(s.id, tracked.get(s.id) ?? [], { currency: s.project?.currency ?? workspaceCurrency(scope), estimatedSeconds: s.estimatedSeconds, showAmounts }),
    );
  }

  /** The instants a range of local days spans, in the caller's own time zone, and their week's first day. */
  async function rangeInstants(scope: TrackingScope, range: ReportRange) {
    const profile = await identity.getUserProfile({ userId: scope.userId });
    const zone = knownZone(profile.timezone);
    const from = zonedTime(range.first, zone);
    const to = zonedTime(nextDay(range.last), zone);
    return { from, to, zone, weekStart: profile.beginningOfWeek };
  }

  /** Tasks as answered: their projects and clients read together, tracked time in one query, the assignees' names asked of accounts once. */
  async function taskAnswers(scope: TrackingScope, rows: TaskRow[]) {
    if (rows.length === 0) return [];
    const owners = await projectsById(db, scope.workspaceId, rows.map((t) => t.project_id));
    const clientIds = [...new Set([...owners.values()].map((p) => p.client_id).filter((id): id is bigint => id !== null))];
    const clientNames = new Map<bigint, string>();
    if (clientIds.length > 0) {
      for (const raw of await clients.query(db, scope.workspaceId).whereIn("id", clientIds.map(idBinding))) {
        const client = clients.read(raw);
        clientNames.set(client.id, client.name);
      }
    }
    const tracked = await trackedSeconds(db, scope.workspaceId, "task_id", rows.map((t) => t.id));
    const names = new Map<bigint, string>();
    if (rows.some((t) => t.user_id !== null)) {
      for (const m of (await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId })).members) names.set(m.userId, m.fullname);
    }
    return rows.map((row) => {
      const project = owners.get(row.project_id);
      return reportTask(row, {
        project,
        clientName: project?.client_id == null ? undefined : clientNames.get(project.client_id),
        assigneeName: row.user_id === null ? undefined : names.get(row.user_id),
        trackedSeconds: tracked.get(row.id) ?? 0,
      });
    });
  }

  return (router: ConnectRouter) =>
    router.service(ReportFilterService, {
      async listClientFilters(req, ctx) {
        const rows = await clientsOf(trackingScope(ctx), req.filter ?? create(ReportClientFilterSchema));
        return { clients: rows.map(filterClient) };
      },

      async searchClients(req, ctx) {
        const f = req.filter ?? create(ReportClientFilterSchema);
        checkSomeGiven(f.ids, f.name, f.start);
        const rows = await clientsOf(trackingScope(ctx), f);
        return { clients: rows.map(clientMessage) };
      },

      async listProjectFilters(req, ctx) {
        const rows = await projectsOf(trackingScope(ctx), req.filter ?? create(ReportProjectFilterSchema));
        return { projects: rows.map(filterProject) };
      },

      async searchProjects(req, ctx) {
        const f = req.filter ?? create(ReportProjectFilterSchema);
        checkSomeGiven(f.clientIds, f.currency, f.ids, f.isActive, f.isBillable, f.isPrivate, f.name, f.pageSize, f.start);
        const rows = await projectsOf(trackingScope(ctx), f);
        return { projects: await projectMessages(db, rows, clock.now()) };
      },

      async listProjectGroupFilters(req, ctx) {
        const scope = trackingScope(ctx);
        const f = req.filter ?? create(ReportProjectGroupFilterSchema);
        // The reference: at least project ids or group ids.
        checkSomeGiven(f.groupIds, f.projectIds);
        const rows = await projectGroupPage(db, scope.viewer, { groupIds: idFilter(f.groupIds), projectIds: idFilter(f.projectIds) }, { from: cursorOf(f.startId), limit: DEFAULT_PAGE_SIZE });
        const names = new Map<bigint, string>();
        if (rows.length > 0) {
          const answer = await identity.resolveGroups({ workspaceId: scope.workspaceId, groupIds: [...new Set(rows.map((r) => r.group_id))] });
          for (const group of answer.groups) names.set(group.groupId, group.name);
        }
        return { projectGroups: rows.map((row) => filterProjectGroup(row, names)) };
      },

      async listProjectUserFilters(req, ctx) {
        const scope = trackingScope(ctx);
        const f = req.filter ?? create(ReportProjectUserFilterSchema);
        checkSomeGiven(f.clientIds, f.projectIds);
        const rows = await projectUserPage(db, scope.viewer, { clientIds: idFilter(f.clientIds), projectIds: idFilter(f.projectIds) }, { from: cursorOf(f.startId), limit: DEFAULT_PAGE_SIZE });
        const shown = visibleRates(scope);
        return { projectUsers: rows.map((row) => filterProjectUser(row, shown)) };
      },

      async listUserFilters(req, ctx) {
        const members = await membersOf(trackingScope(ctx), req.filter ?? create(ReportUserFilterSchema));
        return { users: members.map(filterUser) };
      },

      async searchUsers(req, ctx) {
        const f = req.filter ?? create(ReportUserFilterSchema);
        checkSomeGiven(f.active, f.ids, f.start);
        const members = await membersOf(trackingScope(ctx), f);
        return { users: members.map(searchUser) };
      },

      async listProjectStatuses(req, ctx) {
        const scope = trackingScope(ctx);
        const f = req.filter ?? create(ReportProjectStatusFilterSchema);
        // Without ids: every project the caller sees.
        const rows = await visibleProjects(db, scope.viewer, idFilter(f.ids), f.active);
        return { statuses: await statuses(scope, "project_id", rows.map((p) => ({ id: p.id, project: p, estimatedSeconds: p.estimated_seconds }))) };
      },

      async listTaskStatuses(req, ctx) {
        const scope = trackingScope(ctx);
        const f = req.filter ?? create(ReportTaskStatusFilterSchema);
        checkSomeGiven(f.ids);
        const rows = await visibleTasks(db, scope.viewer, idFilter(f.ids) ?? []);
        const owners = await projectsById(db, scope.workspaceId, rows.map((t) => t.project_id));
        return { statuses: await statuses(scope, "task_id", rows.map((t) => ({ id: t.id, project: owners.get(t.project_id), estimatedSeconds: t.estimated_seconds }))) };
      },

      async listReportTasks(req, ctx) {
        const scope = trackingScope(ctx);
        const f = req.filter ?? create(ReportTaskFilterSchema);
        checkSomeGiven(f.active, f.ids, f.name, f.pageSize, f.projectActive, f.projectIds, f.start, f.userIds);
        const rows = await taskPage(
          db,
          scope.viewer,
          { ids: idFilter(f.ids), projectIds: idFilter(f.projectIds), userIds: idFilter(f.userIds), active: f.active, projectActive: f.projectActive, name: f.name },
          { from: cursorOf(f.start), limit: pageSize(f.pageSize) },
        );
        return { tasks: await taskAnswers(scope, rows) };
      },

      async getProjectUsersSummary(req, ctx) {
        const scope = trackingScope(ctx);
        const range = reportRange(req.range, true);
        const { from, to } = await rangeInstants(scope, range);
        const rows = await secondsByProjectUser(db, scope.viewer, from, to);
        return {
          rows: rows.map((r) => ({ projectId: r.projectId, userId: r.userId, trackedSeconds: BigInt(r.seconds), billableSeconds: BigInt(r.billableSeconds) })),
        };
      },

      async getProjectSummary(req, ctx) {
        const scope = trackingScope(ctx);
        const projectId = rowId(req.projectId);
        if (projectId === undefined) throw summaryProjectIdInvalid();
        const range = reportRange(req.range, false);
        const project = await visibleProject(db, scope.viewer, projectId);
        if (!project) throw summaryProjectNotAccessible();
        const { from, to, zone, weekStart } = await rangeInstants(scope, range);
        const rows = await projectSecondsByDay(db, scope.viewer, project.id, { from, to, spans: offsetSpans(from, to, zone) }, scope.rules.defaultHourlyRate);
        return projectSummary(rows, range, weekStart, project.currency ?? workspaceCurrency(scope), visibleRates(scope));
      },
    });
}

/** The workspace's projects of the ids, by id. */
async function projectsById(db: Knex, workspace: bigint, ids: bigint[]): Promise<Map<bigint, ProjectRow>> {
  const out = new Map<bigint, ProjectRow>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return out;
  for (const raw of await projects.query(db, workspace).whereIn("id", unique.map(idBinding))) {
    const row = projects.read(raw);
    out.set(row.id, row);
  }
  return out;
}
