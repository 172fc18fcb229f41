import { ScopedTable } from "../../../lib/scoped-table.js";
import { readIds } from "../../../lib/ids.js";

export interface GoalRow {
  id: bigint;
  workspace_id: bigint;
  /** Whose time counts. */
  user_id: bigint;
  creator_id: bigint;
  name: string;
  icon: string;
  comparison: string;
  recurrence: string;
  target_seconds: number;
  /** true: only billable entries count. */
  billable: boolean;
  project_ids: bigint[];
  task_ids: bigint[];
  tag_ids: bigint[];
  /** YYYY-MM-DD */
  start_date: string;
  end_date: string | null;
  /** false: archived. */
  active: boolean;
  last_notified_at: Date | null;
  created_at: Date;
  at: Date;
  deleted_at: Date | null;
}

/** A workspace's goals, deleted ones included (`getLive` reads a live one). */
export const goals = new ScopedTable<GoalRow>({
  table: "goals",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    user_id: "id",
    creator_id: "id",
    name: "string",
    icon: "string",
    comparison: "string",
    recurrence: "string",
    target_seconds: "integer",
    billable: "boolean",
    project_ids: "json",
    task_ids: "json",
    tag_ids: "json",
    start_date: "string",
    end_date: "string?",
    active: "boolean",
    last_notified_at: "date?",
    created_at: "date",
    at: "date",
    deleted_at: "date?",
  },
  json: { tag_ids: readIds, project_ids: readIds, task_ids: readIds },
  order: ["id"],
  deletedAt: "deleted_at",
});
