import { create, type JsonValue } from "@bufbuild/protobuf";
import { ConnectError, type Client } from "@connectrpc/connect";
import { GroupService, ListGroupsResponseSchema, ListWorkspaceGroupsResponseSchema } from "../../../gen/accounts/v1/groups_pb.js";
import type { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { ListWorkspaceUsersResponseSchema, WorkspaceUserService } from "../../../gen/accounts/v1/workspace_users_pb.js";
import { GetWorkspaceResponseSchema, WorkspaceService } from "../../../gen/accounts/v1/workspaces_pb.js";
import { AlertService, ListAlertsResponseSchema } from "../../../gen/tracking/v1/alerts_pb.js";
import { ClientService, ListClientsResponseSchema } from "../../../gen/tracking/v1/clients_pb.js";
import { ListProjectGroupsResponseSchema, ProjectGroupService } from "../../../gen/tracking/v1/project_groups_pb.js";
import { ListProjectUsersResponseSchema, ProjectUserService } from "../../../gen/tracking/v1/project_users_pb.js";
import { ListProjectsResponseSchema, ProjectService } from "../../../gen/tracking/v1/projects_pb.js";
import { ListTrackRemindersResponseSchema, TrackReminderService } from "../../../gen/tracking/v1/reminders_pb.js";
import { SearchDetailedReportRequestSchema } from "../../../gen/tracking/v1/reports_pb.js";
import { ListScheduledReportsResponseSchema, ScheduledReportService } from "../../../gen/tracking/v1/saved_reports_pb.js";
import { ListTagsResponseSchema, TagService } from "../../../gen/tracking/v1/tags_pb.js";
import { ListWorkspaceTasksResponseSchema, TaskService } from "../../../gen/tracking/v1/tasks_pb.js";
import { chunks } from "../../../lib/chunks.js";
import type { Knex } from "../../../lib/db.js";
import type { Directory } from "../../../lib/directory.js";
import * as layout from "../portability/layout.js";
import { reportContext } from "../reports/context.js";
import { csvFile, type ReportTable } from "../reports/formats/index.js";
import { reportRange, type ReportRange } from "../reports/rules.js";
import { detailedHistoryTable } from "../reports/tables.js";
import { FIRST_REPORT_DAY, LAST_REPORT_DAY } from "../reporting.js";
import type { TrackingScope } from "../scope.js";
import { allPages, answerBody, asUser } from "./answers.js";
import { jsonEntry, type ArchiveEntry } from "./files.js";
import type { WorkspaceObject } from "./rules.js";
import { MAX_LIST_PROJECTS } from "../project-users/rules.js";
import { deletedWorkspaceEntries, ENTRY_PAGE, entriesOfYear, entryYears, workspaceEntries, type EntrySource } from "./time-entries.js";

export interface WorkspaceArchiveDeps {
  db: Knex;
  directory: Directory;
  identity: Client<typeof IdentityService>;
}

/**
 * The real file's names of fields our answers name otherwise (`uid` for `user_id`, `labor_cost`
 * for `labour_cost` ...), added beside ours, so that tools written for the real file read ours.
 */
function withRealNames(items: JsonValue, names: Record<string, string>): JsonValue {
  if (!Array.isArray(items)) return items;
  return items.map((item) => {
    const o = item as Record<string, JsonValue>;
    const extra: Record<string, JsonValue> = {};
    for (const [real, ours] of Object.entries(names)) if (!(real in o) && ours in o) extra[real] = o[ours];
    return { ...o, ...extra };
  });
}

/** Lists grouped by the project they belong to (tasks, project users), for the per-project files. */
function byProject(items: JsonValue[]): Map<number, JsonValue[]> {
  const out = new Map<number, JsonValue[]>();
  for (const item of items) {
    const pid = Number((item as Record<string, JsonValue>).project_id);
    out.set(pid, [...(out.get(pid) ?? []), item]);
  }
  return out;
}

/**
 * The entries of a workspace export: the real service's files (the lists as the v9 API answers
 * them to the requester, a workspace admin) for the objects asked for, and the time entries as
 * JSON per year and as the detailed report's CSV. The lists are asked for here (small: a
 * workspace's projects, tasks, members); the time entries are read as the archive is written.
 */
export async function workspaceArchive(deps: WorkspaceArchiveDeps, scope: TrackingScope, objects: readonly WorkspaceObject[], checkpoint: () => Promise<void>, now: Date): Promise<ArchiveEntry[]> {
  const { db, directory } = deps;
  const as = asUser(scope.userId);
  const workspaceId = scope.workspaceId;
  const wanted = new Set(objects);
  const entries: ArchiveEntry[] = [];
  const add = (name: string, value: JsonValue) => entries.push(jsonEntry(name, value));

  if (wanted.has("clients")) {
    const answer = await directory.client("tracking", ClientService).listClients({ workspaceId, status: "both" }, as);
    add(layout.CLIENTS_FILE, answerBody(ListClientsResponseSchema, answer, "clients"));
  }
  // Projects name the per-project files of tasks and project users.
  const projectClient = directory.client("tracking", ProjectService);
  const projects = wanted.has("projects") || wanted.has("tasks") || wanted.has("projects_users")
    ? await allPages(async (page, perPage) => {
        const answer = await projectClient.listProjects({ workspaceId, active: "both", page: BigInt(page), perPage: BigInt(perPage) }, as);
        return answer.projects.length ? (answerBody(ListProjectsResponseSchema, answer, "projects") as JsonValue[]) : [];
      })
    : [];
  const projectIds = projects.map((p) => Number((p as Record<string, JsonValue>).id));
  if (wanted.has("projects")) add(layout.PROJECTS_FILE, projects);
  if (wanted.has("tags")) add(layout.TAGS_FILE, answerBody(ListTagsResponseSchema, await directory.client("tracking", TagService).listTags({ workspaceId }, as), "tags"));
  if (wanted.has("tasks")) {
    const taskClient = directory.client("tracking", TaskService);
    const tasks = byProject(
      await allPages(async (page, perPage) => {
        const answer = await taskClient.listWorkspaceTasks({ workspaceId, active: "both", page: BigInt(page), perPage: BigInt(perPage) }, as);
        return answerBody(ListWorkspaceTasksResponseSchema, answer, "data") as JsonValue[];
      }),
    );
    for (const pid of projectIds) add(layout.tasksFile(String(pid)), tasks.get(pid) ?? []);
  }
  if (wanted.has("projects_users")) {
    const answer = await directory.client("tracking", ProjectUserService).listProjectUsers({ workspaceId }, as);
    const users = byProject(withRealNames(answerBody(ListProjectUsersResponseSchema, answer, "project_users"), { labor_cost: "labour_cost", labor_cost_last_updated: "labour_cost_last_updated" }) as JsonValue[]);
    for (const pid of projectIds) add(layout.projectUsersFile(String(pid)), users.get(pid) ?? []);
    // Ours: the groups given the projects (the real layout has no file for them).
    const groupClient = directory.client("tracking", ProjectGroupService);
    const groups: JsonValue[] = [];
    for (const part of chunks(projectIds, MAX_LIST_PROJECTS)) {
      const answer = await groupClient.listProjectGroups({ workspaceId, projectIds: part.join(",") }, as);
      groups.push(...(answerBody(ListProjectGroupsResponseSchema, answer, "project_groups") as JsonValue[]));
    }
    add(layout.PROJECT_GROUPS_FILE, groups);
  }
  if (wanted.has("workspace_users")) {
    const answer = await directory.client("accounts", WorkspaceUserService).listWorkspaceUsers({ workspaceId }, as);
    add(layout.WORKSPACE_USERS_FILE, withRealNames(answerBody(ListWorkspaceUsersResponseSchema, answer, "workspace_users"), { uid: "user_id", wid: "workspace_id", labor_cost: "labour_cost" }));
  }
  if (wanted.has("user_groups")) {
    const answer = await directory.client("accounts", GroupService).listWorkspaceGroups({ workspaceId }, as);
    add(layout.USER_GROUPS_FILE, answerBody(ListWorkspaceGroupsResponseSchema, answer, "groups"));
    // Ours: their members, as the organization's endpoint answers them (to those it lets see them:
    // a workspace admin who is no organization admin exports the groups without their members).
    const members = await directory
      .client("accounts", GroupService)
      .listGroups({ organizationId: scope.organizationId, workspace: String(workspaceId) }, as)
      .catch((err: unknown) => {
        if (err instanceof ConnectError) return undefined;
        throw err;
      });
    if (members) add(layout.GROUP_MEMBERS_FILE, answerBody(ListGroupsResponseSchema, members, "groups"));
  }
  if (wanted.has("alerts")) add(layout.ALERTS_FILE, answerBody(ListAlertsResponseSchema, await directory.client("tracking", AlertService).listAlerts({ workspaceId }, as), "alerts"));
  if (wanted.has("tracking_reminders")) {
    const answer = await directory.client("tracking", TrackReminderService).listTrackReminders({ workspaceId }, as);
    add(layout.TRACKING_REMINDERS_FILE, answerBody(ListTrackRemindersResponseSchema, answer, "track_reminders"));
  }
  if (wanted.has("scheduled_reports")) {
    // A free workspace has none (the feature is premium): `null`, as the real file is then.
    const answer = scope.premium ? await directory.client("tracking", ScheduledReportService).listScheduledReports({ workspaceId }, as) : undefined;
    add(layout.SCHEDULED_REPORTS_FILE, answer ? answerBody(ListScheduledReportsResponseSchema, answer, "scheduled_reports") : null);
  }
  if (wanted.has("workspace_settings")) {
    // The workspace's whole answer: the real file's `hide_start_end_times` and every other setting.
    const answer = await directory.client("accounts", WorkspaceService).getWorkspace({ workspaceId }, as);
    add(layout.WORKSPACE_SETTINGS_FILE, answerBody(GetWorkspaceResponseSchema, answer, "workspace"));
  }
  if (wanted.has("time_entries")) entries.push(...(await timeEntryFiles(deps, scope, checkpoint, now)));
  return entries;
}

/** The table with `checkpoint` run every page of rows (the worker's lease renewed as for the JSON). */
function withCheckpoints(table: ReportTable, checkpoint: () => Promise<void>): ReportTable {
  async function* rows() {
    let n = 0;
    for await (const row of table.rows) {
      if (n++ % ENTRY_PAGE === 0) await checkpoint();
      yield row;
    }
  }
  return { ...table, rows: rows() };
}

const yearOf = (day: string) => Number(day.slice(0, 4));

/**
 * The time entries: JSON per UTC year, then the detailed report's CSV of the same entries (its
 * rows in the requester's zone, a year of that zone at a time, the years the reports can span).
 */
async function timeEntryFiles(deps: WorkspaceArchiveDeps, scope: TrackingScope, checkpoint: () => Promise<void>, now: Date): Promise<ArchiveEntry[]> {
  const { db, identity } = deps;
  const source = workspaceEntries(db, scope.workspaceId);
  const years = await entryYears(source);
  const deleted = deletedWorkspaceEntries(db, scope.workspaceId);
  const perYear = (from: EntrySource, of: number[], name: (year: number) => string) => of.map((year) => ({ name: name(year), content: () => entriesOfYear(db, from, year, checkpoint) }));
  const entries: ArchiveEntry[] = [...perYear(source, years, layout.timeEntriesFile), ...perYear(deleted, await entryYears(deleted), layout.deletedTimeEntriesFile)];
  // A year either side: the requester's zone may put an entry into a neighbouring year.
  const first = Math.max(yearOf(FIRST_REPORT_DAY), (years[0] ?? now.getUTCFullYear()) - 1);
  const last = Math.min(yearOf(LAST_REPORT_DAY) - 1, (years[years.length - 1] ?? first) + 1);
  const year = (y: number) => ({ startDate: `${y}-01-01`, endDate: `${y}-12-31` });
  const ctx = await reportContext(identity, scope, create(SearchDetailedReportRequestSchema, year(first)));
  const ranges: ReportRange[] = [];
  for (let y = first; y <= last; y++) ranges.push(reportRange(year(y), ctx.zone));
  entries.push({ name: layout.DETAILED_CSV_FILE, content: () => csvFile(withCheckpoints(detailedHistoryTable(db, ctx, ranges), checkpoint)) });
  return entries;
}
