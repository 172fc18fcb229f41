import { dbDate, type Knex } from "../../../lib/db.js";

/** The date from which the workspace's time entries are locked, if set. */
export async function reportLockedAt(db: Knex, workspaceId: bigint): Promise<Date | null> {
  const row = await db("workspace_preferences").where({ workspace_id: workspaceId }).first("report_locked_at");
  return row?.report_locked_at ? dbDate(row.report_locked_at) : null;
}

/** Sets (or, null, clears) the lock date. */
export async function setReportLockedAt(trx: Knex.Transaction, workspaceId: bigint, lockedAt: Date | null, now: Date): Promise<void> {
  const updated = await trx("workspace_preferences").where({ workspace_id: workspaceId }).update({ report_locked_at: lockedAt, updated_at: now });
  if (updated === 0) await trx("workspace_preferences").insert({ workspace_id: workspaceId, report_locked_at: lockedAt, updated_at: now });
}
