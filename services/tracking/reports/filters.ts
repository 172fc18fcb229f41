import { isMysql, type Knex } from "../../../lib/db.js";
import { idBinding, readIds } from "../../../lib/ids.js";
import { likePattern, readColumn } from "../../../lib/scoped-table.js";
import { projectUsers } from "../project-users/store.js";
import { visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { tags } from "../tags/store.js";
import { tasks } from "../tasks/store.js";
import { timeEntries } from "../time-entries/store.js";
import type { Sql } from "../reporting.js";
import type { ReportContext } from "./context.js";
import type { IdChoice, Rounding } from "./rules.js";

/**
 * The indexes a page that seeks in start order is read by (`seeking`): left to itself, MariaDB
 * reads such a page by `ref` on workspace_id alone, for its order, testing every entry before the
 * bound (a page 90% deep of a year's 100,000 entries took 15 ms, the first 0.3 ms); held to these it
 * reads the range from the bound (by (user_id, start) for a member's own entries).
 */
export const SEEK_INDEXES = "time_entries_workspace_id_start_index, time_entries_user_id_start_index";

/**
 * The one query every report starts from: the workspace's stopped, live time entries that start in
 * the range, that the caller may see, narrowed by the body's filters; and the SQL expressions the
 * reports group and sum by (rounded seconds, hourly rate, labour cost, local day). The same SQL on
 * SQLite and MySQL/MariaDB. Aliases: te (time_entries), p (projects), pu (project_users), tk (tasks);
 * `joined: false` leaves p, pu and tk out where no filter reads them (summedEntries joins them later).
 *
 * Running entries are left out (they count once stopped), as the projects' `actual_seconds` does.
 */
export function reportEntries(db: Knex, ctx: ReportContext, options: { joined?: boolean; seeking?: boolean } = {}): Knex.QueryBuilder {
  const { scope, range, filters } = ctx;
  // Without the joins only where nothing below reads them: a member's visibility and the client filter read the project.
  const joined = options.joined !== false || !scope.admin || filters.clients !== undefined;
  const q: Knex.QueryBuilder = options.seeking && isMysql(db) ? db.from(db.raw(`?? as te FORCE INDEX (${SEEK_INDEXES})`, [timeEntries.table])) : db(`${timeEntries.table} as te`);
  if (joined) joinRated(q);
  q.where("te.workspace_id", idBinding(scope.workspaceId))
    .whereNull("te.server_deleted_at")
    .whereNotNull("te.stop")
    .where("te.start", ">=", range.from)
    .where("te.start", "<", range.to);
  // A member sees their own entries (as their time entry lists do), and of those only the ones
  // without project or on a project they see; admins see every entry of the workspace.
  if (!scope.admin) {
    q.where("te.user_id", idBinding(scope.userId)).andWhere((w) => {
      w.whereNull("te.project_id").orWhere((visible) => {
        visibleTo(db, visible, scope.viewer, "p");
      });
    });
  }
  if (filters.userIds) q.whereIn("te.user_id", filters.userIds.map(idBinding));
  if (filters.timeEntryIds) q.whereIn("te.id", filters.timeEntryIds.map(idBinding));
  if (filters.projects) choose(q, "te.project_id", filters.projects);
  if (filters.tasks) choose(q, "te.task_id", filters.tasks);
  // Without client: no project, or a project without client (p.client_id is null either way).
  if (filters.clients) choose(q, "p.client_id", filters.clients);
  if (filters.tags) withTags(db, q, filters.tags);
  if (filters.description) q.andWhereRaw("LOWER(te.description) LIKE ? ESCAPE '!'", [likePattern(filters.description)]);
  if (filters.billable !== undefined) q.where("te.billable", filters.billable);
  if (filters.minSeconds !== undefined) q.where("te.duration", ">=", filters.minSeconds);
  if (filters.maxSeconds !== undefined) q.where("te.duration", "<=", filters.maxSeconds);
  return q;
}

/** Joins what an entry's rate and labour cost come from (its project, project user and task) to entries aliased `te`. */
function joinRated(q: Knex.QueryBuilder): Knex.QueryBuilder {
  return q
    .leftJoin(`${projects.table} as p`, (j) => j.on("p.id", "te.project_id").andOn("p.workspace_id", "te.workspace_id"))
    .leftJoin(`${projectUsers.table} as pu`, (j) => j.on("pu.project_id", "te.project_id").andOn("pu.user_id", "te.user_id").andOn("pu.workspace_id", "te.workspace_id"))
    .leftJoin(`${tasks.table} as tk`, (j) => j.on("tk.id", "te.task_id").andOn("tk.workspace_id", "te.workspace_id"));
}

/** The entry columns a rate depends on (with the workspace, which every join matches on). */
const RATED_COLUMNS = ["te.workspace_id", "te.user_id", "te.project_id", "te.task_id", "te.billable"];

/**
 * The report's entries summed first by what their rates depend on (user, project, task, billable)
 * and by `columns` (more of the entry's own columns a report groups by) and `computed` (SQL of
 * the entry under an alias, such as its graph bucket), as a derived table aliased `te` with those
 * columns and `seconds` (rounded per entry), joined then as
 * `reportEntries` joins: the same expressions (rateSql, the groupings' keys) read it as they read
 * an entry, and sum `te.seconds`. The joins are made once per sum instead of once per entry, and
 * the first sums read nothing but the entries (on both engines from the covering index of
 * migration 0032): for a report over many entries, such as a year's summary.
 */
export function summedEntries(db: Knex, ctx: ReportContext, columns: string[] = [], computed: Record<string, Sql> = {}): Knex.QueryBuilder {
  const keys = [...RATED_COLUMNS, ...columns];
  const aliases = Object.keys(computed);
  const sums = reportEntries(db, ctx, { joined: false })
    .select(...keys, ...aliases.map((alias) => selectAs(db, computed[alias], alias)), selectAs(db, `SUM(${secondsSql(ctx.rounding)})`, "seconds"))
    .groupBy(...keys, ...aliases);
  return joinRated(db.from(sums.as("te")));
}

/** The column is one of the ids, or null where "without" is asked for. */
function choose(q: Knex.QueryBuilder, column: string, choice: IdChoice): void {
  q.andWhere((w) => {
    if (choice.ids.length > 0 || !choice.none) w.orWhereIn(column, choice.ids.map(idBinding));
    if (choice.none) w.orWhereNull(column);
  });
}

/** SQL that is true when the entry's tag ids (a JSON list) hold `tagId` (an SQL expression). */
function entryHasTag(db: Knex, tagId: string): string {
  return isMysql(db) ? `JSON_CONTAINS(te.tag_ids, CAST(${tagId} AS CHAR))` : `EXISTS (SELECT 1 FROM json_each(te.tag_ids) AS jt WHERE jt.value = ${tagId})`;
}

/** Entries with any of the (live) tags, and/or with no live tag at all; a deleted tag counts as none. */
function withTags(db: Knex, q: Knex.QueryBuilder, choice: IdChoice): void {
  const liveTag = `SELECT 1 FROM ${tags.table} AS t WHERE t.workspace_id = te.workspace_id AND t.deleted_at IS NULL AND ${entryHasTag(db, "t.id")}`;
  const noTags = isMysql(db) ? "JSON_LENGTH(te.tag_ids) = 0" : "json_array_length(te.tag_ids) = 0";
  q.andWhere((w) => {
    if (choice.ids.length > 0) w.orWhereRaw(`EXISTS (${liveTag} AND t.id IN (${choice.ids.map(() => "?").join(", ")}))`, choice.ids.map(idBinding));
    else if (!choice.none) w.orWhereRaw("1 = 0");
    if (choice.none) w.orWhereRaw(`(${noTags} OR NOT EXISTS (${liveTag}))`);
  });
}

/**
 * An entry's seconds, rounded per entry as the body asks (`rounding_minutes` steps; down, to the
 * nearest, or up): integer arithmetic both engines do alike. The step comes from a fixed list.
 */
export function secondsSql(r: Rounding | undefined): string {
  const d = "te.duration";
  if (!r) return d;
  const step = Math.trunc(r.step);
  if (r.mode < 0) return `(${d} - ${d} % ${step})`;
  if (r.mode > 0) return `(${d} + (${step} - ${d} % ${step}) % ${step})`;
  const half = `(${d} + ${Math.trunc(step / 2)})`;
  return `(${half} - ${half} % ${step})`;
}

/** An SQL expression under an alias, for select lists (aliases name no column of the joined tables). */
export const selectAs = (db: Knex, e: Sql | string, alias: string) => (typeof e === "string" ? db.raw(`${e} AS ${alias}`) : db.raw(`${e.sql} AS ${alias}`, e.bindings));

/**
 * An entry's hourly rate: the task's, else its user's on the project, else the project's, else the
 * user's own in the workspace, else the workspace's default.
 */
export function rateSql(ctx: ReportContext): Sql {
  const members = [...ctx.memberRates];
  const member = members.length ? `CASE te.user_id ${members.map(() => "WHEN ? THEN ?").join(" ")} END, ` : "";
  return { sql: `COALESCE(tk.rate, pu.rate, p.rate, ${member}?)`, bindings: [...members.flatMap(([user, rate]) => [idBinding(user), rate]), ctx.defaultRate] };
}

/** The entry's labour cost per hour: its user's on the project (none elsewhere is known). */
export const LABOUR_SQL = "COALESCE(pu.labour_cost, 0)";

/** Reads a stored JSON list of ids (text on SQLite and MariaDB, parsed on MySQL). */
export function idsOf(raw: unknown): bigint[] {
  const value = readColumn("json", raw);
  return Array.isArray(value) ? readIds(value) : [];
}

/** Reads a stored boolean (0/1 on either engine). */
export const flag = (raw: unknown) => Boolean(Number(raw));
