import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

/** A project a user pinned to the top of their project list (per user, per workspace). */
export interface ProjectPinRow {
  id: bigint;
  workspace_id: bigint;
  project_id: bigint;
  user_id: bigint;
  created_at: Date;
}

export const projectPins = new ScopedTable<ProjectPinRow>({
  table: "project_pins",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", project_id: "id", user_id: "id", created_at: "date" },
  order: ["id"],
});

/** Most pins a user keeps in a workspace: premium (paid) workspaces and free ones. */
export const MAX_PINS = { paid: 100, free: 1 } as const;

/** The ids of the user's pinned projects among `projectIds`. */
export async function pinnedAmong(db: Knex, workspace: bigint, userId: bigint, projectIds: bigint[]): Promise<Set<bigint>> {
  if (projectIds.length === 0) return new Set();
  const rows: { project_id: unknown }[] = await projectPins.query(db, workspace).where("user_id", idBinding(userId)).whereIn("project_id", projectIds.map(idBinding)).select("project_id");
  return new Set(rows.map((r) => readId(r.project_id)));
}
