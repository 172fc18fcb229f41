import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TagSchema, type Tag } from "../../../gen/tracking/v1/tags_pb.js";
import type { Knex } from "../../../lib/db.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { Emit } from "../../../lib/storage.js";
import { liveName, tags, type TagRow } from "./store.js";

/** Who changes tags where (a WorkspaceScope has these). */
export interface TagActor {
  workspaceId: bigint;
  userId: bigint;
}

export function tagMessage(row: TagRow): Tag {
  return create(TagSchema, {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    at: timestampFromDate(row.at),
    creatorId: row.creator_id,
    deletedAt: row.deleted_at ? timestampFromDate(row.deleted_at) : undefined,
  });
}

export const tagEvent = (action: EntityAction, row: TagRow, actor: TagActor) =>
  entityEvent({ entity: "tag", action, schema: TagSchema, message: tagMessage(row), workspaceId: actor.workspaceId, userId: actor.userId });

/**
 * Creates a tag with its event, in the caller's change (the tags endpoint, or a time entry
 * given a tag name that does not exist yet). The name must be valid (`tagName`); a live tag of
 * the same name ignoring case makes the change fail with a unique violation (`onDuplicate`).
 */
export async function insertTag(trx: Knex.Transaction, emit: Emit, actor: TagActor, name: string, now: Date): Promise<TagRow> {
  const row = await tags.insert(trx, { workspace_id: actor.workspaceId, name, live_name: liveName(name), creator_id: actor.userId, at: now, deleted_at: null });
  await emit(tagEvent("created", row, actor));
  return row;
}

/** Renames a live tag read with getForChange, with its event. */
export async function renameTag(trx: Knex.Transaction, emit: Emit, actor: TagActor, existing: TagRow, name: string, now: Date): Promise<TagRow> {
  const row = await tags.update(trx, existing, { name, live_name: liveName(name), at: now });
  await emit(tagEvent("updated", row, actor));
  return row;
}

/**
 * Deletes a live tag read with getForChange: the row stays with `deleted_at` (so `since` lists
 * answer it) and frees its name; time entries stop answering it in `tags`/`tag_ids`, as they
 * read their tags through `liveTags`.
 */
export async function deleteTag(trx: Knex.Transaction, emit: Emit, actor: TagActor, existing: TagRow, now: Date): Promise<void> {
  const row = await tags.update(trx, existing, { live_name: null, deleted_at: now, at: now });
  await emit(tagEvent("deleted", row, actor));
}
