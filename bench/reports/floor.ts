import { isMysql, type Knex } from "../../lib/db.js";
import { SEEK_INDEXES } from "../../services/tracking/reports/filters.js";

/**
 * The floor of the reports bench: for each report, SQL written here that answers the same figures
 * (grouped and summed in SQL), issued by knex in the bench process directly on the tracking
 * database: what the database must do at least, with no gateway, RPC, accounts call, name
 * look-ups or answer building. The entries are the ones every report starts from (the
 * workspace's stopped, live entries starting in the range, as an admin sees them), with the same
 * joins for the hourly rate (task, project user, project, the workspace's default: none of the
 * seeded members has a rate of their own) and labour cost. The bench's caller is in UTC, so a
 * local day is the UTC day.
 */

const JOINS = `
  LEFT JOIN projects p ON p.id = te.project_id AND p.workspace_id = te.workspace_id
  LEFT JOIN project_users pu ON pu.project_id = te.project_id AND pu.user_id = te.user_id AND pu.workspace_id = te.workspace_id
  LEFT JOIN tasks tk ON tk.id = te.task_id AND tk.workspace_id = te.workspace_id`;
const FROM = `FROM time_entries te ${JOINS}`;
const WHERE = "te.workspace_id = ? AND te.server_deleted_at IS NULL AND te.stop IS NOT NULL AND te.start >= ? AND te.start < ?";
const RATE = "COALESCE(tk.rate, pu.rate, p.rate, ?)";
const ENTRY_COLUMNS = "te.id, te.user_id, te.project_id, te.task_id, te.billable, te.description, te.tag_ids, te.start, te.stop, te.at, te.duration AS seconds";

/** The rows of a raw SELECT on either engine (mysql2 answers [rows, fields]). */
async function rows(db: Knex, sql: string, bindings: unknown[]): Promise<Record<string, unknown>[]> {
  const res = await db.raw(sql, bindings as Knex.RawBinding[]);
  return isMysql(db) ? (res[0] as Record<string, unknown>[]) : (res as Record<string, unknown>[]);
}

export interface Range {
  from: Date;
  to: Date;
}

export class Floor {
  private readonly day: string;
  /** FROM of a page read by seeking in start order: on MariaDB held to the indexes the reports hold it to (`SEEK_INDEXES`). */
  private readonly seekFrom: string;

  constructor(
    private readonly db: Knex,
    private readonly workspaceId: number,
    /** The workspace's default hourly rate. */
    private readonly defaultRate: number,
  ) {
    this.seekFrom = isMysql(db) ? `FROM time_entries te FORCE INDEX (${SEEK_INDEXES}) ${JOINS}` : FROM;
    this.day = isMysql(db) ? "(TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', te.start) DIV 86400)" : "(te.start / 86400000)";
  }

  /** summary/time_entries, grouping projects, sub-grouping users: seconds per project, user, rate and billable flag. */
  summary(r: Range) {
    return rows(
      this.db,
      `SELECT te.project_id AS g_key, te.user_id AS s_key, ${RATE} AS hourly_rate, te.billable AS is_billable, SUM(te.duration) AS seconds
       ${FROM} WHERE ${WHERE} GROUP BY g_key, s_key, hourly_rate, is_billable`,
      [this.defaultRate, this.workspaceId, r.from, r.to],
    );
  }

  /** search/time_entries in date order: `size` + 1 rows (the one more says whether rows remain), from an offset or seeking from a start and id. */
  page(r: Range, size: number, start: { offset?: number; seek?: { start: Date; id: number } } = {}) {
    const seek = start.seek ? " AND (te.start > ? OR (te.start = ? AND te.id >= ?))" : "";
    const offset = start.offset ? ` OFFSET ${Math.trunc(start.offset)}` : "";
    return rows(
      this.db,
      `SELECT ${ENTRY_COLUMNS}, ${RATE} AS hourly_rate ${start.seek ? this.seekFrom : FROM} WHERE ${WHERE}${seek} ORDER BY te.start, te.id LIMIT ${size + 1}${offset}`,
      [this.defaultRate, this.workspaceId, r.from, r.to, ...(start.seek ? [start.seek.start, start.seek.start, start.seek.id] : [])],
    );
  }

  /**
   * search/time_entries/totals, by the queries the reports run on each engine: on SQLite seconds per
   * day, rate, labour cost and billable flag in one pass (`days` and `sums` the same rows); on
   * MySQL/MariaDB seconds per day from the entries alone, and seconds per month, rate, labour cost
   * and billable flag, summed per month and what a rate depends on before the joins.
   */
  async totals(r: Range) {
    if (!isMysql(this.db)) {
      const sums = await rows(
        this.db,
        `SELECT ${this.day} AS local_day, ${RATE} AS hourly_rate, COALESCE(pu.labour_cost, 0) AS labour_rate, te.billable AS is_billable, SUM(te.duration) AS seconds
         ${FROM} WHERE ${WHERE} GROUP BY local_day, hourly_rate, labour_rate, is_billable`,
        [this.defaultRate, this.workspaceId, r.from, r.to],
      );
      return { days: sums, sums };
    }
    const months = Array.from({ length: 11 }, (_, i) => new Date(Date.UTC(r.from.getUTCFullYear(), r.from.getUTCMonth() + i + 1)));
    const month = `CASE ${months.map((_, i) => `WHEN te.start < ? THEN ${i}`).join(" ")} ELSE ${months.length} END`;
    const [days, sums] = await Promise.all([
      rows(this.db, `SELECT ${this.day} AS local_day, SUM(te.duration) AS seconds FROM time_entries te WHERE ${WHERE} GROUP BY local_day`, [this.workspaceId, r.from, r.to]),
      rows(
        this.db,
        `SELECT te.bucket, ${RATE} AS hourly_rate, COALESCE(pu.labour_cost, 0) AS labour_rate, te.billable AS is_billable, SUM(te.seconds) AS seconds
         FROM (SELECT te.workspace_id, te.user_id, te.project_id, te.task_id, te.billable, ${month} AS bucket, SUM(te.duration) AS seconds
               FROM time_entries te WHERE ${WHERE} GROUP BY te.workspace_id, te.user_id, te.project_id, te.task_id, te.billable, bucket) te ${JOINS}
         GROUP BY te.bucket, hourly_rate, labour_rate, is_billable`,
        [this.defaultRate, ...months, this.workspaceId, r.from, r.to],
      ),
    ]);
    return { days, sums };
  }

  /** weekly/time_entries: seconds per user, project, day, rate and billable flag. */
  weekly(r: Range) {
    return rows(
      this.db,
      `SELECT te.user_id AS w_user, te.project_id AS w_project, ${this.day} AS local_day, ${RATE} AS hourly_rate, te.billable AS is_billable, SUM(te.duration) AS seconds
       ${FROM} WHERE ${WHERE} GROUP BY w_user, w_project, local_day, hourly_rate, is_billable`,
      [this.defaultRate, this.workspaceId, r.from, r.to],
    );
  }

  /**
   * The CSV export's rows: every entry of the range in date order, pages of `size` by seeking (as
   * the export reads them), each with what its line names (project and client names); answers
   * the rows read.
   */
  async exportRows(r: Range, size = 1000): Promise<number> {
    let seek: { start: Date; id: number } | undefined;
    let count = 0;
    for (;;) {
      const seekSql = seek ? " AND (te.start > ? OR (te.start = ? AND te.id >= ?))" : "";
      const page = await rows(
        this.db,
        `SELECT ${ENTRY_COLUMNS}, ${RATE} AS hourly_rate, p.name AS project_name, c.name AS client_name
         ${seek ? this.seekFrom : FROM} LEFT JOIN clients c ON c.id = p.client_id AND c.workspace_id = te.workspace_id
         WHERE ${WHERE}${seekSql} ORDER BY te.start, te.id LIMIT ${size + 1}`,
        [this.defaultRate, this.workspaceId, r.from, r.to, ...(seek ? [seek.start, seek.start, seek.id] : [])],
      );
      count += Math.min(page.length, size);
      if (page.length <= size) return count;
      const next = page[size];
      seek = { start: next.start instanceof Date ? next.start : new Date(next.start as number), id: Number(next.id) };
    }
  }
}
