import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";
import { readIds } from "../../../lib/ids.js";

export interface FavoriteRow {
  id: bigint;
  /** The owner: favorites are the caller's own, in one of their workspaces. */
  user_id: bigint;
  workspace_id: bigint;
  description: string | null;
  project_id: bigint | null;
  task_id: bigint | null;
  billable: boolean;
  tag_ids: bigint[];
  public: boolean;
  rank: number;
  was_public_at: Date | null;
  created_at: Date;
  at: Date;
  /** Set when deleted: the row stays, so `since` lists answer it. */
  deleted_at: Date | null;
}

/** A user's favorites, deleted ones included, by rank. */
export const favorites = new ScopedTable<FavoriteRow>({
  table: "favorites",
  scope: "user_id",
  columns: {
    id: "id",
    user_id: "id",
    workspace_id: "id",
    description: "string?",
    project_id: "id?",
    task_id: "id?",
    billable: "boolean",
    tag_ids: "json",
    public: "boolean",
    rank: "integer",
    was_public_at: "date?",
    created_at: "date",
    at: "date",
    deleted_at: "date?",
  },
  json: { tag_ids: readIds },
  order: ["rank", "id"],
});

/** The rank a new favorite of the user takes: after every other. */
export async function nextRank(trx: Knex.Transaction, userId: bigint): Promise<number> {
  const row = await favorites.query(trx, userId).max({ top: "rank" }).first();
  return Number(row?.top ?? 0) + 1;
}

/** Whether the user ever had a favorite (deleted ones count): suggestions are made only before the first. */
export async function everHadFavorite(db: Knex, userId: bigint): Promise<boolean> {
  return (await favorites.query(db, userId).first("id")) !== undefined;
}
