import { ScopedTable } from "../../../lib/scoped-table.js";

export interface ProjectUserRow {
  id: bigint;
  workspace_id: bigint;
  project_id: bigint;
  user_id: bigint;
  manager: boolean;
  /** The user's hourly rate on the project; null: the workspace's or user's rate applies. */
  rate: number | null;
  labour_cost: number | null;
  rate_last_updated: Date | null;
  labour_cost_last_updated: Date | null;
  at: Date;
}

/** Who works on which project of a workspace (one row per project and user). */
export const projectUsers = new ScopedTable<ProjectUserRow>({
  table: "project_users",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    project_id: "id",
    user_id: "id",
    manager: "boolean",
    rate: "number?",
    labour_cost: "number?",
    rate_last_updated: "date?",
    labour_cost_last_updated: "date?",
    at: "date",
  },
  order: ["id"],
});
