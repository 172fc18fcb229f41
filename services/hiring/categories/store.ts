import type { Knex } from "../../../lib/db.js";
import { upsert } from "../bulk.js";

export interface CategoryRow {
  workspace_id: string;
  id: string;
  name: string;
  job_opening_id: string;
}

/** A workspace's candidate categories (each of one job opening), by name. */
export const categories = {
  upsert: (trx: Knex.Transaction, rows: CategoryRow[]): Promise<void> => upsert(trx, "categories", rows),

  async list(db: Knex, workspaceId: string, jobOpeningId?: string): Promise<CategoryRow[]> {
    const q = db("categories").where({ workspace_id: workspaceId });
    if (jobOpeningId !== undefined) q.andWhere({ job_opening_id: jobOpeningId });
    return q.orderBy("name").orderBy("id").select("workspace_id", "id", "name", "job_opening_id");
  },
};
