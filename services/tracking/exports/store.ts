import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export type ExportKind = "workspace" | "user";
export type ExportState = "pending" | "running" | "done" | "failed" | "expired";

export interface ExportRow {
  id: bigint;
  uuid: string;
  kind: ExportKind;
  /** The exported workspace; null for a user's own export. */
  workspace_id: bigint | null;
  requester_id: bigint;
  objects: string[];
  state: ExportState;
  error_message: string;
  /** Set while pending or running (unique): one unfinished export per requester and target. */
  active_key: string | null;
  /** The finished ZIP, relative to EXPORT_DIR. */
  file_path: string | null;
  attempts: number;
  created_at: Date;
  finished_at: Date | null;
}

/** Export requests, by requester (the workspace lists and the worker query by their own columns). */
export const exportRequests = new ScopedTable<ExportRow>({
  table: "exports",
  scope: "requester_id",
  columns: {
    id: "id",
    uuid: "string",
    kind: "string",
    workspace_id: "id?",
    requester_id: "id",
    objects: "json",
    state: "string",
    error_message: "string",
    active_key: "string?",
    file_path: "string?",
    attempts: "integer",
    created_at: "date",
    finished_at: "date?",
  },
  order: ["id"],
});

const read = (rows: Record<string, unknown>[]) => rows.map((raw) => exportRequests.read(raw));

/** A workspace's exports, newest first. */
export async function workspaceExports(db: Knex, workspace: bigint): Promise<ExportRow[]> {
  return read(await db(exportRequests.table).where({ kind: "workspace", workspace_id: workspace }).orderBy("id", "desc"));
}

/** A user's exports of their own data, newest first. */
export async function userExports(db: Knex, userId: bigint): Promise<ExportRow[]> {
  return read(await exportRequests.query(db, userId).where({ kind: "user" }).orderBy("id", "desc"));
}

/** The export behind a download path: a workspace's (any admin's) or the user's own. */
export async function exportByUuid(db: Knex, uuid: string, owner: { workspace: bigint } | { userId: bigint }): Promise<ExportRow | undefined> {
  const q = db(exportRequests.table).where({ uuid });
  if ("workspace" in owner) q.andWhere({ kind: "workspace", workspace_id: owner.workspace });
  else q.andWhere({ kind: "user", requester_id: owner.userId });
  const raw = await q.first();
  return raw ? exportRequests.read(raw) : undefined;
}

/** Jobs to build, oldest first: pending ones, and running ones a dead worker left. */
export async function unfinishedExports(db: Knex): Promise<ExportRow[]> {
  return read(await db(exportRequests.table).whereIn("state", ["pending", "running"]).orderBy("id"));
}

/** Finished exports whose files are older than `cutoff`. */
export async function staleExports(db: Knex, cutoff: Date): Promise<ExportRow[]> {
  return read(await db(exportRequests.table).where({ state: "done" }).andWhere("finished_at", "<", cutoff).orderBy("id"));
}

/** Changes a job's row, if it is still in the state the worker read (another pass may have settled it). */
export async function moveExport(db: Knex, row: ExportRow, from: ExportState, changes: Partial<Omit<ExportRow, "id" | "uuid">>): Promise<boolean> {
  const values: Record<string, unknown> = { ...changes };
  if (changes.objects) values.objects = JSON.stringify(changes.objects);
  return (await db(exportRequests.table).where({ id: row.id, state: from }).update(values)) > 0;
}
