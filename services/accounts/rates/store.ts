import { RATE_HISTORY_COLUMNS, RateHistory, type RateHistoryRow } from "../../../lib/rate-history.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

/** The levels whose rates this service keeps: a workspace (its id) and a workspace user (its membership's id). */
export type WorkspaceRateLevel = "workspace" | "workspace_user";

export interface WorkspaceRateRow extends RateHistoryRow {
  level: WorkspaceRateLevel;
}

/** A workspace's rates and its users', by start. */
export const workspaceRates = new ScopedTable<WorkspaceRateRow>({
  table: "workspace_rates",
  scope: "workspace_id",
  columns: RATE_HISTORY_COLUMNS,
  order: ["start", "id"],
});

export const workspaceRateHistory = new RateHistory(workspaceRates);
