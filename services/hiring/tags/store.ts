import type { Knex } from "../../../lib/db.js";
import { upsert } from "../bulk.js";

export interface TagRow {
  workspace_id: string;
  id: string;
  name: string;
}

/** A workspace's candidate tags, by name. */
export const tags = {
  upsert: (trx: Knex.Transaction, rows: TagRow[]): Promise<void> => upsert(trx, "tags", rows),

  async list(db: Knex, workspaceId: string): Promise<TagRow[]> {
    return db("tags").where({ workspace_id: workspaceId }).orderBy("name").orderBy("id").select("workspace_id", "id", "name");
  },
};
