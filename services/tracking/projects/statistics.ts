import type { Knex } from "../../../lib/db.js";
import { dbDate } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { timeEntries } from "../time-entries/store.js";

/** `GET /me/projects/paginated`: its page size by default (the reference's) and at most. */
export const DEFAULT_MY_PROJECTS_PAGE = 201;
export const MAX_MY_PROJECTS_PAGE = 1000;

/** A stored time as the statistics answer it: RFC 3339, UTC, whole seconds. */
const rfc3339 = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : dbDate(v as Date).toISOString().slice(0, 19) + "Z");

/**
 * The start of the project's first and of its last time entry (`GET .../projects/{id}/statistics`):
 * stopped, non-deleted entries only, as the reference says running ones are not considered.
 */
export async function earliestAndLatestEntry(db: Knex, workspace: bigint, projectId: bigint): Promise<{ earliest?: string; latest?: string }> {
  const row: { earliest: unknown; latest: unknown } | undefined = await timeEntries
    .query(db, workspace)
    .where("project_id", idBinding(projectId))
    .whereNull("server_deleted_at")
    .where("duration", ">=", 0)
    .first(db.raw("min(start) as earliest"), db.raw("max(start) as latest"));
  return { earliest: rfc3339(row?.earliest), latest: rfc3339(row?.latest) };
}
