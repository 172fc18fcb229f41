import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import type { Emit } from "../../../lib/storage.js";
import { timeEntries, type TimeEntryRow } from "./store.js";
import { entryEvents } from "./view.js";

/**
 * Tracked seconds per project or task (`by`): the sum of the durations of its stopped, non-deleted
 * entries. A running entry counts nothing until it stops (its elapsed time changes every second,
 * and a project or task answer is not a timer). Ids without entries are left out.
 */
export async function trackedSeconds(db: Knex, workspace: bigint, by: "project_id" | "task_id", ids: bigint[]): Promise<Map<bigint, number>> {
  const out = new Map<bigint, number>();
  if (ids.length === 0) return out;
  const rows: { id: unknown; total: unknown }[] = await timeEntries
    .query(db, workspace)
    .whereIn(by, ids.map(idBinding))
    .whereNull("server_deleted_at")
    .where("duration", ">=", 0)
    .groupBy(by)
    .select({ id: by }, db.raw("sum(duration) as total"));
  for (const row of rows) out.set(readId(row.id), Number(row.total));
  return out;
}

/** Tracked seconds per project (`trackedSeconds`), 0 for a project without entries. */
export async function actualSeconds(db: Knex, workspace: bigint, projectIds: bigint[]): Promise<Map<bigint, number>> {
  const tracked = await trackedSeconds(db, workspace, "project_id", projectIds);
  return new Map(projectIds.map((id) => [id, tracked.get(id) ?? 0]));
}

/**
 * What deleting a project does to its entries (the workspace's `teDeletionMode`): "delete" marks
 * them deleted, "unassign" keeps them without project and task. Each changed entry emits its
 * time_entry event (deleted / updated) in the caller's change.
 */
export async function detachProjectEntries(trx: Knex.Transaction, workspace: bigint, projectId: bigint, mode: "delete" | "unassign", now: Date, emit: Emit): Promise<void> {
  const raws = await timeEntries.query(trx, workspace).where("project_id", idBinding(projectId)).whereNull("server_deleted_at").forUpdate();
  const changes = mode === "delete" ? { server_deleted_at: now, at: now, running_user_id: null } : { project_id: null, task_id: null, at: now };
  const rows: TimeEntryRow[] = [];
  for (const raw of raws) rows.push(await timeEntries.update(trx, timeEntries.read(raw), changes));
  for (const event of await entryEvents(trx, mode === "delete" ? "deleted" : "updated", rows, (row) => row.user_id)) await emit(event);
}
