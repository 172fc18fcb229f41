import type { Knex } from "../../lib/db.js";

/** Rows per statement in bulk writes: well below the placeholder limits of both engines. */
const CHUNK = 500;

export function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Inserts or replaces by (workspace_id, id). */
export async function upsert(trx: Knex.Transaction, table: string, rows: object[]): Promise<void> {
  for (const part of chunks(rows)) await trx(table).insert(part).onConflict(["workspace_id", "id"]).merge();
}
