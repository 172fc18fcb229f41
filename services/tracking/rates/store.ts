import { ScopedTable } from "../../../lib/scoped-table.js";

/** The levels whose rates this service keeps, and the types of rate. */
export type RateLevel = "project" | "project_user" | "task";
export type RateType = "billable_rates" | "labor_costs";

export interface RateRow {
  id: number;
  workspace_id: number;
  level: RateLevel;
  level_id: number;
  project_id: number | null;
  project_user_id: number | null;
  task_id: number | null;
  type: RateType;
  amount: number;
  start: Date;
  /** When the next rate took over; null while current. */
  end: Date | null;
  rate_change_mode: string | null;
  creator_id: number;
  created_at: Date;
  updated_at: Date;
  /** Set when a later rate replaced this one. */
  deleted_at: Date | null;
  /** When the entity's current value followed this rate (it had begun); null while it lies ahead. */
  applied_at: Date | null;
}

/** A workspace's rates, by start. */
export const rates = new ScopedTable<RateRow>({
  table: "rates",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    level: "string",
    level_id: "id",
    project_id: "id?",
    project_user_id: "id?",
    task_id: "id?",
    type: "string",
    amount: "number",
    start: "date",
    end: "date?",
    rate_change_mode: "string?",
    creator_id: "id",
    created_at: "date",
    updated_at: "date",
    deleted_at: "date?",
    applied_at: "date?",
  },
  order: ["start", "id"],
});
