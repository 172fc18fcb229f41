import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import { idBinding, readIds } from "../../../lib/ids.js";

export interface TimeEntryRow {
  id: bigint;
  workspace_id: bigint;
  user_id: bigint;
  project_id: bigint | null;
  task_id: bigint | null;
  description: string | null;
  billable: boolean;
  start: Date;
  stop: Date | null;
  /** Seconds; a running entry holds the negative UNIX time of its start. */
  duration: number;
  /** The user's id while the entry runs (unique: one running entry per user), else null. */
  running_user_id: bigint | null;
  tag_ids: bigint[];
  shared_with_user_ids: bigint[];
  created_with: string;
  created_at: Date;
  at: Date;
  server_deleted_at: Date | null;
}

/** A workspace's time entries, by start. */
export const timeEntries = new ScopedTable<TimeEntryRow>({
  table: "time_entries",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    user_id: "id",
    project_id: "id?",
    task_id: "id?",
    description: "string?",
    billable: "boolean",
    start: "date",
    stop: "date?",
    duration: "integer",
    running_user_id: "id?",
    tag_ids: "json",
    shared_with_user_ids: "json",
    created_with: "string",
    created_at: "date",
    at: "date",
    server_deleted_at: "date?",
  },
  json: { tag_ids: readIds, shared_with_user_ids: readIds },
  order: ["start", "id"],
});

/** A user's entries in every workspace (the /me endpoints are not scoped to one workspace). */
export function userEntries(db: Knex, userId: bigint): Knex.QueryBuilder {
  return db(timeEntries.table).where("user_id", idBinding(userId));
}

const running = (db: Knex, userId: bigint) => db(timeEntries.table).where("running_user_id", idBinding(userId)).first();

/** The user's running entry, if one runs. */
export async function runningEntry(db: Knex, userId: bigint): Promise<TimeEntryRow | undefined> {
  const raw = await running(db, userId);
  return raw ? timeEntries.read(raw) : undefined;
}

/** The user's running entry, locked until the change commits (concurrent starts wait on it). */
export async function runningEntryForChange(trx: Knex.Transaction, userId: bigint): Promise<TimeEntryRow | undefined> {
  const raw = await running(trx, userId).forUpdate();
  return raw ? timeEntries.read(raw) : undefined;
}
