import type { Knex } from "../../../lib/db.js";
import { chunks } from "../../../lib/chunks.js";

/** Which of the ids exist in the workspace's table. */
export async function existingIds(db: Knex, table: "openings" | "categories" | "tags", workspaceId: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks([...new Set(ids)])) {
    const rows: { id: string }[] = await db(table).where({ workspace_id: workspaceId }).whereIn("id", part).select("id");
    for (const r of rows) found.add(r.id);
  }
  return found;
}
