import { RATE_HISTORY_COLUMNS, RateHistory, type RateHistoryRow, type RateType } from "../../../lib/rate-history.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

/** The levels whose rates this service keeps (the accounts service keeps `workspace` and `workspace_user`'s). */
export type RateLevel = "project" | "project_user" | "task";
export type { RateType };

export interface RateRow extends RateHistoryRow {
  level: RateLevel;
  project_id: bigint | null;
  project_user_id: bigint | null;
  task_id: bigint | null;
}

/** A workspace's rates, by start. */
export const rates = new ScopedTable<RateRow>({
  table: "rates",
  scope: "workspace_id",
  columns: {
    ...RATE_HISTORY_COLUMNS,
    project_id: "id?",
    project_user_id: "id?",
    task_id: "id?",
  },
  order: ["start", "id"],
});

export const rateHistory = new RateHistory(rates);
