import type { Knex } from "../../lib/db.js";
import { chunks as slices } from "../../lib/chunks.js";

/** Rows per statement in bulk writes: well below the placeholder limits of both engines. */
const CHUNK = 500;

export const chunks = <T>(items: T[], size = CHUNK): T[][] => slices(items, size);

/** Inserts or replaces by (workspace_id, id). */
export async function upsert(trx: Knex.Transaction, table: string, rows: object[]): Promise<void> {
  for (const part of chunks(rows)) await trx(table).insert(part).onConflict(["workspace_id", "id"]).merge();
}
