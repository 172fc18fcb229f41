import { rowId } from "../../../lib/ids.js";
import { rangeOutOfBounds, rangeParameterFormat, rangeParameterRequired, rangeReversed, tooManyPostedIds } from "../errors.js";
import { checkSomeGiven, dayNumber, FIRST_REPORT_DAY, LAST_REPORT_DAY, type ReportRange } from "../reporting.js";
import { parseDay } from "../time-entries/rules.js";

/** Most ids a body may name (the reference's count; users have their own). */
export const MAX_POSTED_IDS = 2000;
export const MAX_POSTED_USER_IDS = 100;
/** Rows of a page: the reference's default for projects, used by every list with a cursor; and the most a body's `page_size` gets. */
export const DEFAULT_PAGE_SIZE = 201;
export const MAX_PAGE_SIZE = 1000;
/** A body's ids as row ids, each once; an id no row can have (0, negative, beyond 2^63-1) names nothing. */
export function postedIds(ids: readonly bigint[], max = MAX_POSTED_IDS): bigint[] {
  if (ids.length > max) throw tooManyPostedIds(max);
  return [...new Set(ids.map(rowId).filter((id): id is bigint => id !== undefined))];
}

/** Rows of one page: `page_size` when given (at most MAX_PAGE_SIZE), else DEFAULT_PAGE_SIZE. */
export function pageSize(raw: bigint | undefined): number {
  return raw === undefined || raw <= 0n ? DEFAULT_PAGE_SIZE : Number(raw > BigInt(MAX_PAGE_SIZE) ? MAX_PAGE_SIZE : raw);
}

/** The smallest id of a page (`start`, `start_id`): ids at or after it are listed. */
export function cursorOf(raw: bigint | undefined): bigint {
  return raw === undefined || raw <= 0n ? 0n : raw;
}

/**
 * A summary's range: `start_date` and `end_date` (YYYY-MM-DD) are both required, within the
 * reference's bounds, the end not before the start. `anyFirst`: a body naming neither is the
 * reference's "At least one parameter must be set" (the project users summary).
 */
export function reportRange(range: { startDate: string; endDate: string } | undefined, anyFirst: boolean): ReportRange {
  const given = { start_date: range?.startDate.trim() ?? "", end_date: range?.endDate.trim() ?? "" };
  if (anyFirst) checkSomeGiven(given.start_date, given.end_date);
  const [first, last] = (["start_date", "end_date"] as const).map((name) => {
    if (!given[name]) throw rangeParameterRequired(name);
    const day = parseDay(given[name]);
    if (!day) throw rangeParameterFormat(name);
    const n = dayNumber(day);
    if (n < dayNumber(parseDay(FIRST_REPORT_DAY)!) || n > dayNumber(parseDay(LAST_REPORT_DAY)!)) throw rangeOutOfBounds(name, FIRST_REPORT_DAY, LAST_REPORT_DAY);
    return day;
  });
  if (dayNumber(last) < dayNumber(first)) throw rangeReversed();
  return { first, last };
}

