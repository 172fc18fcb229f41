import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export interface SavedReportRow {
  id: bigint;
  workspace_id: bigint;
  /** The owner. */
  user_id: bigint;
  name: string;
  /** The report's parameters: a JSON object with `report_type`. */
  params: Record<string, unknown>;
  public: boolean;
  fixed_daterange: boolean;
  /** SHA-256 (hex) of the token: what a run looks the report up by. */
  token_hash: string;
  /** The token sealed with ENCRYPTION_KEY: what the lists show. */
  token_sealed: string;
  created_at: Date;
  updated_at: Date;
  updated_by: bigint;
}

/** A workspace's saved reports, oldest first. */
export const savedReports = new ScopedTable<SavedReportRow>({
  table: "saved_reports",
  scope: "workspace_id",
  columns: {
    id: "id",
    workspace_id: "id",
    user_id: "id",
    name: "string",
    params: "json",
    public: "boolean",
    fixed_daterange: "boolean",
    token_hash: "string",
    token_sealed: "string",
    created_at: "date",
    updated_at: "date",
    updated_by: "id",
  },
  order: ["id"],
});

/** The saved report a token runs, in whichever workspace (the token is all a run names). */
export async function savedReportByTokenHash(db: Knex, tokenHash: string): Promise<SavedReportRow | undefined> {
  const raw = await db(savedReports.table).where({ token_hash: tokenHash }).first();
  return raw ? savedReports.read(raw) : undefined;
}
