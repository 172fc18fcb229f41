import { ScopedTable } from "../../../lib/scoped-table.js";

export interface ProjectGroupRow {
  id: bigint;
  workspace_id: bigint;
  project_id: bigint;
  /** A group of the workspace's organization (owned by the accounts service). */
  group_id: bigint;
  at: Date;
}

/** Which groups (of the organization) are assigned to which project of a workspace. */
export const projectGroups = new ScopedTable<ProjectGroupRow>({
  table: "project_groups",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", project_id: "id", group_id: "id", at: "date" },
  order: ["id"],
});
