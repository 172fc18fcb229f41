import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export interface TagRow {
  id: bigint;
  workspace_id: bigint;
  name: string;
  /** `name` lower-cased while the tag lives, null once deleted (the unique key of live names). */
  live_name: string | null;
  creator_id: bigint;
  at: Date;
  /** Set when the tag was deleted: the row stays, so `GET /me/tags?since=` can answer it. */
  deleted_at: Date | null;
}

/** A workspace's tags, deleted ones included (see `liveTags`), listed by name ignoring case. */
export const tags = new ScopedTable<TagRow>({
  table: "tags",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", name: "string", live_name: "string?", creator_id: "id", at: "date", deleted_at: "date?" },
  order: ["lower(name)", "id"],
});

/** The key that makes live tag names unique per workspace: case does not make a new tag. */
export const liveName = (name: string): string => name.toLowerCase();

/** The workspace's live tags among `ids` (deleted and unknown ids left out), for time entries' `tag_ids`. */
export async function liveTags(db: Knex, workspace: bigint, ids: bigint[]): Promise<TagRow[]> {
  if (ids.length === 0) return [];
  const rows = await tags.query(db, workspace).whereIn("id", ids.map(idBinding)).whereNull("deleted_at");
  return rows.map((raw: Record<string, unknown>) => tags.read(raw));
}

/** The workspace's live tags named `names` (ignoring case), for time entries given tag names. */
export async function liveTagsByName(db: Knex, workspace: bigint, names: string[]): Promise<TagRow[]> {
  if (names.length === 0) return [];
  const rows = await tags.query(db, workspace).whereIn("live_name", names.map(liveName));
  return rows.map((raw: Record<string, unknown>) => tags.read(raw));
}
