import { ScopedTable } from "../../../lib/scoped-table.js";
import { readIds } from "../../../lib/ids.js";

export interface ReminderRow {
  id: bigint;
  workspace_id: bigint;
  /** Days: 1 or 7. */
  frequency: number;
  /** Hours. */
  threshold: number;
  user_ids: bigint[];
  group_ids: bigint[];
  creator_id: bigint;
  created_at: Date;
  at: Date;
}

/** A workspace's track reminders, oldest first. */
export const reminders = new ScopedTable<ReminderRow>({
  table: "track_reminders",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", frequency: "integer", threshold: "integer", user_ids: "json", group_ids: "json", creator_id: "id", created_at: "date", at: "date" },
  json: { user_ids: readIds, group_ids: readIds },
  order: ["id"],
});

/** What the scheduler settled for one reminder, user and period (unique on the three). */
export interface ReminderCheckRow {
  id: bigint;
  reminder_id: bigint;
  workspace_id: bigint;
  user_id: bigint;
  period_start: Date;
  tracked_seconds: number;
  mailed: boolean;
  checked_at: Date;
}

export const reminderChecks = new ScopedTable<ReminderCheckRow>({
  table: "track_reminder_checks",
  scope: "workspace_id",
  columns: { id: "id", reminder_id: "id", workspace_id: "id", user_id: "id", period_start: "date", tracked_seconds: "integer", mailed: "boolean", checked_at: "date" },
  order: ["id"],
});
