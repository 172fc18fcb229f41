import { chunks } from "../../../lib/chunks.js";
import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import { idBinding, readId, readIds } from "../../../lib/ids.js";

export interface ScheduledReportRow {
  id: bigint;
  workspace_id: bigint;
  /** The saved report mailed (`bookmark_id`). */
  saved_report_id: bigint;
  /** Days: 1, 7 or 30 (a calendar month). */
  frequency: number;
  user_ids: bigint[];
  group_ids: bigint[];
  creator_id: bigint;
  created_at: Date;
}

/** A workspace's scheduled reports, oldest first. */
export const scheduledReports = new ScopedTable<ScheduledReportRow>({
  table: "scheduled_reports",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", saved_report_id: "id", frequency: "integer", user_ids: "json", group_ids: "json", creator_id: "id", created_at: "date" },
  json: { user_ids: readIds, group_ids: readIds },
  order: ["id"],
});

/** The last period a schedule mailed to one recipient (unique on schedule and user). */
export interface ScheduledReportSendRow {
  id: bigint;
  scheduled_report_id: bigint;
  workspace_id: bigint;
  user_id: bigint;
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
export async function schedulesOf(db: Knex, workspace: bigint, savedReportIds: bigint[]): Promise<Map<bigint, ScheduledReportRow[]>> {
  const out = new Map<bigint, ScheduledReportRow[]>();
  if (savedReportIds.length === 0) return out;
  for (const part of chunks(savedReportIds)) {
    const rows = await scheduledReports.query(db, workspace).whereIn("saved_report_id", part.map(idBinding)).orderBy("id");
    for (const raw of rows as Record<string, unknown>[]) {
      const row = scheduledReports.read(raw);
      out.set(row.saved_report_id, [...(out.get(row.saved_report_id) ?? []), row]);
    }
  }
  return out;
}

/** Removes a saved report's schedules and what they sent, in the saved report's deletion. */
export async function deleteSchedulesOf(trx: Knex.Transaction, workspace: bigint, savedReportId: bigint): Promise<void> {
  const ids = (await scheduledReports.query(trx, workspace).where({ saved_report_id: savedReportId }).pluck("id")).map(readId);
  if (ids.length === 0) return;
  await scheduledReportSends.query(trx, workspace).whereIn("scheduled_report_id", ids.map(idBinding)).delete();
  await scheduledReports.query(trx, workspace).whereIn("id", ids.map(idBinding)).delete();
}
