import type { Knex } from "../../lib/db.js";
import { chunks } from "../../lib/chunks.js";

/** Inserts or replaces by (workspace_id, id). */
export async function upsert(trx: Knex.Transaction, table: string, rows: object[]): Promise<void> {
  for (const part of chunks(rows)) await trx(table).insert(part).onConflict(["workspace_id", "id"]).merge();
}
