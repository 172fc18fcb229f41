import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export interface ScheduledReportRow {
  id: number;
  workspace_id: number;
  /** The saved report mailed (`bookmark_id`). */
  saved_report_id: number;
  /** Days: 1, 7 or 30 (a calendar month). */
  frequency: number;
  user_ids: number[];
  group_ids: number[];
  creator_id: number;
  created_at: Date;
}

/** A workspace's scheduled reports, oldest first. */
export const scheduledReports = new ScopedTable<ScheduledReportRow>({
  table: "scheduled_reports",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", saved_report_id: "id", frequency: "integer", user_ids: "json", group_ids: "json", creator_id: "id", created_at: "date" },
  order: ["id"],
});

/** The last period a schedule mailed to one recipient (unique on schedule and user). */
export interface ScheduledReportSendRow {
  id: number;
  scheduled_report_id: number;
  workspace_id: number;
  user_id: number;
  period_start: Date;
  sent_at: Date;
}

export const scheduledReportSends = new ScopedTable<ScheduledReportSendRow>({
  table: "scheduled_report_sends",
  scope: "workspace_id",
  columns: { id: "id", scheduled_report_id: "id", workspace_id: "id", user_id: "id", period_start: "date", sent_at: "date" },
  order: ["id"],
});

/** The schedules of saved reports, by saved report id (what a saved report's answer lists as its recipients). */
export async function schedulesOf(db: Knex, workspace: number, savedReportIds: number[]): Promise<Map<number, ScheduledReportRow[]>> {
  const out = new Map<number, ScheduledReportRow[]>();
  if (savedReportIds.length === 0) return out;
  for (let i = 0; i < savedReportIds.length; i += 500) {
    const rows = await scheduledReports.query(db, workspace).whereIn("saved_report_id", savedReportIds.slice(i, i + 500)).orderBy("id");
    for (const raw of rows as Record<string, unknown>[]) {
      const row = scheduledReports.read(raw);
      out.set(row.saved_report_id, [...(out.get(row.saved_report_id) ?? []), row]);
    }
  }
  return out;
}

/** Removes a saved report's schedules and what they sent, in the saved report's deletion. */
export async function deleteSchedulesOf(trx: Knex.Transaction, workspace: number, savedReportId: number): Promise<void> {
  const ids: number[] = (await scheduledReports.query(trx, workspace).where({ saved_report_id: savedReportId }).pluck("id")).map(Number);
  if (ids.length === 0) return;
  await scheduledReportSends.query(trx, workspace).whereIn("scheduled_report_id", ids).delete();
  await scheduledReports.query(trx, workspace).whereIn("id", ids).delete();
}
