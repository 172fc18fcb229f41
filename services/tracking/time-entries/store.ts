import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export interface TimeEntryRow {
  id: number;
  workspace_id: number;
  user_id: number;
  project_id: number | null;
  task_id: number | null;
  description: string | null;
  billable: boolean;
  start: Date;
  stop: Date | null;
  /** Seconds; a running entry holds the negative UNIX time of its start. */
  duration: number;
  /** The user's id while the entry runs (unique: one running entry per user), else null. */
  running_user_id: number | null;
  tag_ids: number[];
  shared_with_user_ids: number[];
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
  order: ["start", "id"],
});

/** A user's entries in every workspace (the /me endpoints are not scoped to one workspace). */
export function userEntries(db: Knex, userId: number): Knex.QueryBuilder {
  return db(timeEntries.table).where("user_id", userId);
}

const running = (db: Knex, userId: number) => db(timeEntries.table).where("running_user_id", userId).first();

/** The user's running entry, if one runs. */
export async function runningEntry(db: Knex, userId: number): Promise<TimeEntryRow | undefined> {
  const raw = await running(db, userId);
  return raw ? timeEntries.read(raw) : undefined;
}

/** The user's running entry, locked until the change commits (concurrent starts wait on it). */
export async function runningEntryForChange(trx: Knex.Transaction, userId: number): Promise<TimeEntryRow | undefined> {
  const raw = await running(trx, userId).forUpdate();
  return raw ? timeEntries.read(raw) : undefined;
}
