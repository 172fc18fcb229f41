import { ScopedTable } from "../../../lib/scoped-table.js";
import { readIds } from "../../../lib/ids.js";

export interface AlertRow {
  id: bigint;
  workspace_id: bigint;
  /** The watched project; null for a source kind without one. */
  project_id: bigint | null;
  object_type: number;
  source_kind: string;
  threshold_type: string;
  /** Ascending, without repeats. */
  thresholds: number[];
  /** Which receiver lists are set (rules.ts RECEIVER_TYPE). */
  receivers: number;
  receiver_roles: string[];
  receiver_users: bigint[];
  creator_id: bigint;
  created_at: Date;
}

/** A workspace's alerts, oldest first. */
export const alerts = new ScopedTable<AlertRow>({
  table: "alerts",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    project_id: "id?",
    object_type: "integer",
    source_kind: "string",
    threshold_type: "string",
    thresholds: "json",
    receivers: "integer",
    receiver_roles: "json",
    receiver_users: "json",
    creator_id: "id",
    created_at: "date",
  },
  json: { receiver_users: readIds },
  order: ["id"],
});
