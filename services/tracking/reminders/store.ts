import { ScopedTable } from "../../../lib/scoped-table.js";

export interface ReminderRow {
  id: number;
  workspace_id: number;
  /** Days: 1 or 7. */
  frequency: number;
  /** Hours. */
  threshold: number;
  user_ids: number[];
  group_ids: number[];
  creator_id: number;
  created_at: Date;
  at: Date;
}

/** A workspace's track reminders, oldest first. */
export const reminders = new ScopedTable<ReminderRow>({
  table: "track_reminders",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", frequency: "integer", threshold: "integer", user_ids: "json", group_ids: "json", creator_id: "id", created_at: "date", at: "date" },
  order: ["id"],
});

/** What the scheduler settled for one reminder, user and period (unique on the three). */
export interface ReminderCheckRow {
  id: number;
  reminder_id: number;
  workspace_id: number;
  user_id: number;
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
