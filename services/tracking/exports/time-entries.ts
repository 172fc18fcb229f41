import { TimeEntrySchema } from "../../../gen/tracking/v1/time_entries_pb.js";
import { dbDate, type Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { entryMessages } from "../time-entries/view.js";
import { restJson } from "./answers.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";

/**
 * The time entries of an export as the v9 API answers them, one JSON array per UTC year of their
 * start, read from the database a page at a time (seeking on start and id, the order of the
 * `(workspace_id, start)` and `(user_id, start)` indexes) and written as they are read: an export
 * never holds more than a page. A running entry is exported with the negative duration the API
 * answers for it; a workspace's deleted entries (the API answers them as `since` changes) go into
 * files of their own, so that the year files hold what the API lists.
 */

/** Entries read and written per query. */
export const ENTRY_PAGE = 1000;

/** The entries an export takes: a query of live entries (a workspace's, or a user's in every workspace). */
export type EntrySource = () => Knex.QueryBuilder;

export const workspaceEntries = (db: Knex, workspace: bigint): EntrySource => () => timeEntries.query(db, workspace).whereNull("server_deleted_at");
export const deletedWorkspaceEntries = (db: Knex, workspace: bigint): EntrySource => () => timeEntries.query(db, workspace).whereNotNull("server_deleted_at");
export const usersEntries = (db: Knex, userId: bigint): EntrySource => () => db(timeEntries.table).where("user_id", idBinding(userId)).whereNull("server_deleted_at");

const yearStart = (year: number) => new Date(Date.UTC(year, 0, 1));

/** The UTC years in which the source has entries, in order. */
export async function entryYears(source: EntrySource): Promise<number[]> {
  const bounds = (await source().min("start as first").max("start as last").first()) as { first: Date | string | null; last: Date | string | null } | undefined;
  if (!bounds?.first) return [];
  const [first, last] = [dbDate(bounds.first).getUTCFullYear(), dbDate(bounds.last!).getUTCFullYear()];
  const years: number[] = [];
  for (let year = first; year <= last; year++) {
    if (year === first || year === last || (await source().where("start", ">=", yearStart(year)).andWhere("start", "<", yearStart(year + 1)).first("id"))) years.push(year);
  }
  return years;
}

/**
 * One year's entries as a JSON array, a page of entries per piece; `checkpoint` runs before each
 * page is read (the worker renews its lease there, and stops when it lost it).
 */
export async function* entriesOfYear(db: Knex, source: EntrySource, year: number, checkpoint: () => Promise<void>): AsyncGenerator<string> {
  const page = (after?: TimeEntryRow): Promise<TimeEntryRow[]> => {
    const q = source().where("start", ">=", yearStart(year)).andWhere("start", "<", yearStart(year + 1));
    if (after) {
      const { start, id } = after;
      // The plain bound lets the engines seek the index; the pair decides within the second.
      q.andWhere("start", ">=", start).andWhere((w) => w.where("start", ">", start).orWhere("id", ">", idBinding(id)));
    }
    return q.orderBy("start").orderBy("id").limit(ENTRY_PAGE).then((raws: Record<string, unknown>[]) => raws.map((raw) => timeEntries.read(raw)));
  };
  yield "[";
  await checkpoint();
  // The next page is asked for while this one is written (a server database works meanwhile).
  let next: Promise<TimeEntryRow[]> | undefined = page();
  let first = true;
  while (next) {
    const rows: TimeEntryRow[] = await next;
    next = rows.length === ENTRY_PAGE ? checkpoint().then(() => page(rows[rows.length - 1])) : undefined;
    // A failing prefetch is awaited (and thrown) on the next turn, not left unhandled meanwhile.
    next?.catch(() => undefined);
    if (rows.length === 0) break;
    const texts = (await entryMessages(db, rows)).map((entry) => JSON.stringify(restJson(TimeEntrySchema, entry)));
    yield (first ? "" : ",") + texts.join(",");
    first = false;
  }
  yield "]";
}
