import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export interface TaskRow {
  id: bigint;
  workspace_id: bigint;
  project_id: bigint;
  name: string;
  /** `name` lower-cased (the lists' order). */
  sort_name: string;
  /** false: done. */
  active: boolean;
  /** The assignee, if any. */
  user_id: bigint | null;
  estimated_seconds: number | null;
  rate: number | null;
  rate_last_updated: Date | null;
  creator_id: bigint;
  created_at: Date;
  at: Date;
  /** Set when the task (or its project) is deleted. */
  server_deleted_at: Date | null;
}

/** A workspace's tasks, deleted ones included (`getLive` reads a live one). */
export const tasks = new ScopedTable<TaskRow>({
  table: "tasks",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    project_id: "id",
    name: "string",
    sort_name: "string",
    active: "boolean",
    user_id: "id?",
    estimated_seconds: "integer?",
    rate: "number?",
    rate_last_updated: "date?",
    creator_id: "id",
    created_at: "date",
    at: "date",
    server_deleted_at: "date?",
  },
  order: ["sort_name", "id"],
  deletedAt: "server_deleted_at",
});

