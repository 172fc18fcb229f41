import { dbDate, type Knex } from "../../../lib/db.js";
import { upsert } from "../bulk.js";

export interface OpeningRow {
  workspace_id: string;
  id: string;
  name: string;
  slug: string;
  created_at: Date;
  published_at: Date | null;
  closed_at: Date | null;
  /** JSON array of {id, name, slug}. */
  tests: string;
}

function openingRow(row: Record<string, unknown>): OpeningRow {
  return {
    ...(row as unknown as OpeningRow),
    created_at: dbDate(row.created_at as Date),
    published_at: row.published_at == null ? null : dbDate(row.published_at as Date),
    closed_at: row.closed_at == null ? null : dbDate(row.closed_at as Date),
  };
}

/** A workspace's job openings, in the order they were created. */
export const openings = {
  upsert: (trx: Knex.Transaction, rows: OpeningRow[]): Promise<void> => upsert(trx, "openings", rows),

  async list(db: Knex, workspaceId: string): Promise<OpeningRow[]> {
    const rows = await db("openings").where({ workspace_id: workspaceId }).orderBy("created_at").orderBy("id");
    return rows.map(openingRow);
  },

  async get(db: Knex, workspaceId: string, id: string): Promise<OpeningRow | undefined> {
    const row = await db("openings").where({ workspace_id: workspaceId, id }).first();
    return row ? openingRow(row) : undefined;
  },
};
