import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

/** One recurring period setting of a project (premium). */
export interface RecurringParameters {
  period: string;
  custom_period: number | null;
  project_start_date: string;
}

export interface ProjectRow {
  id: bigint;
  workspace_id: bigint;
  client_id: bigint | null;
  name: string;
  /** `name` lower-cased (the list's order). */
  sort_name: string;
  /** false: archived. */
  active: boolean;
  is_private: boolean;
  color: string;
  billable: boolean | null;
  template: boolean;
  template_id: bigint | null;
  auto_estimates: boolean | null;
  estimated_seconds: number | null;
  currency: string | null;
  fixed_fee: number | null;
  rate: number | null;
  rate_last_updated: Date | null;
  recurring: boolean;
  recurring_parameters: RecurringParameters | null;
  /** YYYY-MM-DD */
  start_date: string;
  /** YYYY-MM-DD or null (no end). */
  end_date: string | null;
  creator_id: bigint;
  created_at: Date;
  at: Date;
  /** Set when the project is deleted: the row stays so that `since` lists can answer it. */
  server_deleted_at: Date | null;
}

/** A workspace's projects, deleted ones included (`getLive` reads a live one). */
export const projects = new ScopedTable<ProjectRow>({
  table: "projects",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    client_id: "id?",
    name: "string",
    sort_name: "string",
    active: "boolean",
    is_private: "boolean",
    color: "string",
    billable: "boolean?",
    template: "boolean",
    template_id: "id?",
    auto_estimates: "boolean?",
    estimated_seconds: "integer?",
    currency: "string?",
    fixed_fee: "number?",
    rate: "number?",
    rate_last_updated: "date?",
    recurring: "boolean",
    recurring_parameters: "json?",
    start_date: "string",
    end_date: "string?",
    creator_id: "id",
    created_at: "date",
    at: "date",
    server_deleted_at: "date?",
  },
  order: ["sort_name", "id"],
  deletedAt: "server_deleted_at",
});

