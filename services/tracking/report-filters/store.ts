import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import { likePattern } from "../../../lib/scoped-table.js";
import { clients, type ClientRow } from "../clients/store.js";
import { projectGroups, type ProjectGroupRow } from "../project-groups/store.js";
import { projectUsers, type ProjectUserRow } from "../project-users/store.js";
import { visibleTo, type Viewer } from "../projects/access.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { tasks, type TaskRow } from "../tasks/store.js";
import { timeEntries } from "../time-entries/store.js";
import { localDaySql, type OffsetSpan } from "../reporting.js";

/**
 * The report helpers' queries over tracking's own tables. Every list is a page in id order from a
 * cursor (`from`), and every query of projects, their groups, users, tasks and time entries goes
 * through `visibleTo`, so a private project (and all that hangs on it) exists only for those who see it.
 * An id list of a filter is undefined for "any"; an empty one matches nothing.
 */

/** A page in id order: ids at or after `from`, at most `limit`. */
export interface Page {
  from: bigint;
  limit: number;
}

const paged = (q: Knex.QueryBuilder, column: string, page: Page) => q.where(column, ">=", idBinding(page.from)).orderBy(column).limit(page.limit);

/** A case-insensitive part of a column, LIKE's wildcards taken literally. */
const containing = (q: Knex.QueryBuilder, column: string, text: string | undefined) => {
  const name = text?.trim();
  if (name) q.andWhereRaw(`LOWER(??) LIKE ? ESCAPE '!'`, [column, likePattern(name)]);
};

/** The viewer's live projects, as a query to narrow further (`alias` names the table). */
function liveProjects(db: Knex, viewer: Viewer, alias = "projects"): Knex.QueryBuilder {
  return visibleTo(db, db(`${projects.table} as ${alias}`).where(`${alias}.workspace_id`, idBinding(viewer.workspace)).whereNull(`${alias}.server_deleted_at`), viewer, alias);
}

export async function clientPage(db: Knex, workspace: bigint, filter: { ids?: bigint[]; name?: string }, page: Page): Promise<ClientRow[]> {
  const q = clients.query(db, workspace);
  if (filter.ids) q.whereIn("id", filter.ids.map(idBinding));
  containing(q, "name", filter.name);
  return (await paged(q, "id", page)).map((raw: Record<string, unknown>) => clients.read(raw));
}

export interface ProjectFilter {
  ids?: bigint[];
  clientIds?: bigint[];
  /** Projects without a client too (a 0 among `client_ids`, as in the v9 list). */
  noClient: boolean;
  /** A currency code; a project without one has the workspace's default. */
  currency?: { code: string; workspaceDefault: string };
  active?: boolean;
  billable?: boolean;
  private?: boolean;
  name?: string;
}

export async function projectPage(db: Knex, viewer: Viewer, filter: ProjectFilter, page: Page): Promise<ProjectRow[]> {
  const q = liveProjects(db, viewer);
  if (filter.ids) q.whereIn("id", filter.ids.map(idBinding));
  if (filter.clientIds || filter.noClient) {
    q.andWhere((w) => {
      w.whereIn("client_id", (filter.clientIds ?? []).map(idBinding));
      if (filter.noClient) w.orWhereNull("client_id");
    });
  }
  const { currency } = filter;
  if (currency) {
    q.andWhere((w) => {
      w.where("currency", currency.code);
      if (currency.code === currency.workspaceDefault) w.orWhereNull("currency");
    });
  }
  if (filter.active !== undefined) q.where("active", filter.active);
  if (filter.billable !== undefined) q.andWhere((w) => (filter.billable ? w.where("billable", true) : w.where("billable", false).orWhereNull("billable")));
  if (filter.private !== undefined) q.where("is_private", filter.private);
  containing(q, "name", filter.name);
  return (await paged(q.select("projects.*"), "id", page)).map((raw: Record<string, unknown>) => projects.read(raw));
}

/** The viewer's live projects (among `ids`, when given) that are active (or archived), in id order. */
export async function visibleProjects(db: Knex, viewer: Viewer, ids: bigint[] | undefined, active?: boolean): Promise<ProjectRow[]> {
  if (ids?.length === 0) return [];
  const q = liveProjects(db, viewer);
  if (ids) q.whereIn("id", ids.map(idBinding));
  if (active !== undefined) q.where("active", active);
  return (await q.select("projects.*").orderBy("id")).map((raw: Record<string, unknown>) => projects.read(raw));
}

/** The viewer's live project of the id, or undefined. */
export async function visibleProject(db: Knex, viewer: Viewer, id: bigint): Promise<ProjectRow | undefined> {
  return (await visibleProjects(db, viewer, [id]))[0];
}

export async function projectGroupPage(db: Knex, viewer: Viewer, filter: { groupIds?: bigint[]; projectIds?: bigint[] }, page: Page): Promise<ProjectGroupRow[]> {
  const q = projectGroups.query(db, viewer.workspace).whereIn("project_id", liveProjects(db, viewer).select("projects.id"));
  if (filter.groupIds) q.whereIn("group_id", filter.groupIds.map(idBinding));
  if (filter.projectIds) q.whereIn("project_id", filter.projectIds.map(idBinding));
  return (await paged(q, "id", page)).map((raw: Record<string, unknown>) => projectGroups.read(raw));
}

export async function projectUserPage(db: Knex, viewer: Viewer, filter: { clientIds?: bigint[]; projectIds?: bigint[] }, page: Page): Promise<ProjectUserRow[]> {
  const visible = liveProjects(db, viewer).select("projects.id");
  if (filter.clientIds) visible.whereIn("client_id", filter.clientIds.map(idBinding));
  const q = projectUsers.query(db, viewer.workspace).whereIn("project_id", visible);
  if (filter.projectIds) q.whereIn("project_id", filter.projectIds.map(idBinding));
  return (await paged(q, "id", page)).map((raw: Record<string, unknown>) => projectUsers.read(raw));
}

export interface TaskFilter {
  ids?: bigint[];
  projectIds?: bigint[];
  userIds?: bigint[];
  active?: boolean;
  projectActive?: boolean;
  name?: string;
}

/** Live tasks of the viewer's live projects. */
export async function taskPage(db: Knex, viewer: Viewer, filter: TaskFilter, page: Page): Promise<TaskRow[]> {
  const visible = liveProjects(db, viewer).select("projects.id");
  if (filter.projectActive !== undefined) visible.where("active", filter.projectActive);
  const q = tasks.query(db, viewer.workspace).whereNull("server_deleted_at").whereIn("project_id", visible);
  if (filter.ids) q.whereIn("id", filter.ids.map(idBinding));
  if (filter.projectIds) q.whereIn("project_id", filter.projectIds.map(idBinding));
  if (filter.userIds) q.whereIn("user_id", filter.userIds.map(idBinding));
  if (filter.active !== undefined) q.where("active", filter.active);
  containing(q, "name", filter.name);
  return (await paged(q, "id", page)).map((raw: Record<string, unknown>) => tasks.read(raw));
}

/** The named live tasks of the viewer's live projects. */
export async function visibleTasks(db: Knex, viewer: Viewer, ids: bigint[]): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  return taskPage(db, viewer, { ids }, { from: 0n, limit: ids.length });
}

/**
 * The workspace's counted entries (stopped, not deleted, on a live project the viewer sees), each
 * with its hourly rate (the task's, else its user's on the project, else the project's, else the
 * workspace's default) and its user's labour cost on the project. Aliases: te, p, tk, pu.
 */
function ratedEntries(db: Knex, viewer: Viewer, workspaceRate: number): { q: Knex.QueryBuilder; rate: Knex.Raw; labour: Knex.Raw } {
  // The rate and labour cost are selected under their aliases (hourly_rate, labour_rate), which the groupings name.
  const q = db(`${timeEntries.table} as te`)
    .join(`${projects.table} as p`, (j) => j.on("p.id", "te.project_id").andOn("p.workspace_id", "te.workspace_id"))
    .leftJoin(`${tasks.table} as tk`, (j) => j.on("tk.id", "te.task_id").andOn("tk.workspace_id", "te.workspace_id"))
    .leftJoin(`${projectUsers.table} as pu`, (j) => j.on("pu.project_id", "te.project_id").andOn("pu.user_id", "te.user_id").andOn("pu.workspace_id", "te.workspace_id"))
    .where("te.workspace_id", idBinding(viewer.workspace))
    .whereNull("te.server_deleted_at")
    .where("te.duration", ">=", 0)
    .whereNull("p.server_deleted_at");
  visibleTo(db, q, viewer, "p");
  return { q, rate: db.raw("COALESCE(tk.rate, pu.rate, p.rate, ?) as hourly_rate", [workspaceRate]), labour: db.raw("COALESCE(pu.labour_cost, 0) as labour_rate") };
}

/** Tracked seconds of one group of entries at one hourly rate (and labour cost). */
export interface RatedSeconds {
  rate: number;
  labour: number;
  seconds: number;
  billableSeconds: number;
}

const BILLABLE_SECONDS = "SUM(CASE WHEN te.billable <> 0 THEN te.duration ELSE 0 END)";

function ratedSeconds(raw: Record<string, unknown>): RatedSeconds {
  return { rate: Number(raw.hourly_rate ?? 0), labour: Number(raw.labour_rate ?? 0), seconds: Number(raw.seconds ?? 0), billableSeconds: Number(raw.billable_seconds ?? 0) };
}

/** All-time seconds of the projects' or tasks' (`by`) entries, per id and rate. */
export async function trackedByRate(db: Knex, viewer: Viewer, by: "project_id" | "task_id", ids: bigint[], workspaceRate: number): Promise<Map<bigint, RatedSeconds[]>> {
  const out = new Map<bigint, RatedSeconds[]>();
  if (ids.length === 0) return out;
  const { q, rate } = ratedEntries(db, viewer, workspaceRate);
  const raws: Record<string, unknown>[] = await q
    .whereIn(`te.${by}`, ids.map(idBinding))
    .groupBy("rated_id", "hourly_rate")
    .select({ rated_id: `te.${by}` }, rate, db.raw("SUM(te.duration) as seconds"), db.raw(`${BILLABLE_SECONDS} as billable_seconds`));
  for (const raw of raws) {
    const id = readId(raw.rated_id);
    out.set(id, [...(out.get(id) ?? []), ratedSeconds(raw)]);
  }
  return out;
}

/** Seconds per project and user of the entries that start in [from, to). */
export async function secondsByProjectUser(db: Knex, viewer: Viewer, from: Date, to: Date): Promise<{ projectId: bigint; userId: bigint; seconds: number; billableSeconds: number }[]> {
  const { q } = ratedEntries(db, viewer, 0);
  const raws: Record<string, unknown>[] = await q
    .where("te.start", ">=", from)
    .where("te.start", "<", to)
    .groupBy("te.project_id", "te.user_id")
    .orderBy("te.project_id")
    .orderBy("te.user_id")
    .select({ project_id: "te.project_id", user_id: "te.user_id" }, db.raw("SUM(te.duration) as seconds"), db.raw(`${BILLABLE_SECONDS} as billable_seconds`));
  return raws.map((raw) => ({ projectId: readId(raw.project_id), userId: readId(raw.user_id), seconds: Number(raw.seconds), billableSeconds: Number(raw.billable_seconds) }));
}

/** One project's entries that start in [from, to), per local day, rate and labour cost. */
export async function projectSecondsByDay(
  db: Knex,
  viewer: Viewer,
  projectId: bigint,
  range: { from: Date; to: Date; spans: OffsetSpan[] },
  workspaceRate: number,
): Promise<(RatedSeconds & { day: number })[]> {
  const { q, rate, labour } = ratedEntries(db, viewer, workspaceRate);
  const local = localDaySql(db, range.spans);
  const day = db.raw(`${local.sql} as local_day`, local.bindings);
  const raws: Record<string, unknown>[] = await q
    .where("te.project_id", idBinding(projectId))
    .where("te.start", ">=", range.from)
    .where("te.start", "<", range.to)
    .groupBy("local_day", "hourly_rate", "labour_rate")
    .select(day, rate, labour, db.raw("SUM(te.duration) as seconds"), db.raw(`${BILLABLE_SECONDS} as billable_seconds`));
  return raws.map((raw) => ({ day: Number(raw.local_day), ...ratedSeconds(raw) }));
}
