import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import { idBinding, readIds } from "../../../lib/ids.js";

export interface TimesheetSetupRow {
  id: bigint;
  workspace_id: bigint;
  member_id: bigint;
  approver_ids: bigint[];
  periodicity: string;
  reminder_day: string | null;
  reminder_time: string | null;
  start_date: string;
  end_date: string | null;
  created_at: Date;
  at: Date;
  deleted_at: Date | null;
}

export const timesheetSetups = new ScopedTable<TimesheetSetupRow>({
  table: "timesheet_setups",
  scope: "workspace_id",
  columns: {
    id: "id", workspace_id: "id", member_id: "id", approver_ids: "json", periodicity: "string", reminder_day: "string?", reminder_time: "string?",
    start_date: "string", end_date: "string?", created_at: "date", at: "date", deleted_at: "date?",
  },
  json: { approver_ids: readIds },
  order: ["start_date", "id"],
  deletedAt: "deleted_at",
});

export interface TimesheetRow {
  id: bigint;
  workspace_id: bigint;
  setup_id: bigint;
  member_id: bigint;
  start_date: string;
  status: string;
  submitted_at: Date | null;
  approved_or_rejected_at: Date | null;
  approved_or_rejected_id: bigint | null;
  rejection_comment: string | null;
  reminder_sent_at: Date | null;
  created_at: Date;
  at: Date;
}

export const timesheets = new ScopedTable<TimesheetRow>({
  table: "timesheets",
  scope: "workspace_id",
  columns: {
    id: "id", workspace_id: "id", setup_id: "id", member_id: "id", start_date: "string", status: "string", submitted_at: "date?",
    approved_or_rejected_at: "date?", approved_or_rejected_id: "id?", rejection_comment: "string?", reminder_sent_at: "date?", created_at: "date", at: "date",
  },
  order: ["start_date", "id"],
});

/** The live setups of a workspace. */
export async function liveSetups(db: Knex, workspace: bigint): Promise<TimesheetSetupRow[]> {
  const rows = await timesheetSetups.query(db, workspace).whereNull("deleted_at").orderBy("start_date").orderBy("id");
  return rows.map((raw: Record<string, unknown>) => timesheetSetups.read(raw));
}

/** The stored timesheets of some setups. */
export async function storedTimesheets(db: Knex, workspace: bigint, setupIds: bigint[]): Promise<TimesheetRow[]> {
  if (setupIds.length === 0) return [];
  const rows = await timesheets.query(db, workspace).whereIn("setup_id", setupIds.map(idBinding));
  return rows.map((raw: Record<string, unknown>) => timesheets.read(raw));
}

/** A period's stored timesheet, locked for the change. */
export async function timesheetForChange(trx: Knex.Transaction, workspace: bigint, setupId: bigint, startDate: string): Promise<TimesheetRow | undefined> {
  const raw = await timesheets.query(trx, workspace).where({ setup_id: setupId, start_date: startDate }).forUpdate().first();
  return raw ? timesheets.read(raw) : undefined;
}
