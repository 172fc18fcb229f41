import { storageId } from "../../../lib/ids.js";
import { noFilterParameter, rangeOutOfBounds, rangeParameterFormat, rangeParameterRequired, rangeReversed, tooManyPostedIds } from "../errors.js";
import { parseDay, type Day } from "../time-entries/rules.js";

/** Most ids a body may name (the reference's count; users have their own). */
export const MAX_POSTED_IDS = 2000;
export const MAX_POSTED_USER_IDS = 100;
/** Rows of a page: the reference's default for projects, used by every list with a cursor; and the most a body's `page_size` gets. */
export const DEFAULT_PAGE_SIZE = 201;
export const MAX_PAGE_SIZE = 1000;
/** The days a summary's range may name, both included (the reference's bounds). */
export const FIRST_REPORT_DAY = "2006-01-01";
export const LAST_REPORT_DAY = "2030-01-01";

/** A body value that says something: a non-empty list, a non-blank text, any other value given. */
const isGiven = (value: unknown) => (Array.isArray(value) ? value.length > 0 : typeof value === "string" ? value.trim() !== "" : value !== undefined);

/** The search lists and the lists that need a subject answer 400 when the body names nothing. */
export function checkSomeGiven(...values: unknown[]): void {
  if (!values.some(isGiven)) throw noFilterParameter();
}

/** A body's ids as storage ids, each once; an id no row can have (0, negative, beyond 2^53) names nothing. */
export function postedIds(ids: readonly bigint[], max = MAX_POSTED_IDS): number[] {
  if (ids.length > max) throw tooManyPostedIds(max);
  return [...new Set(ids.map(storageId).filter((id): id is number => id !== undefined))];
}

/** Rows of one page: `page_size` when given (at most MAX_PAGE_SIZE), else DEFAULT_PAGE_SIZE. */
export function pageSize(raw: bigint | undefined): number {
  return raw === undefined || raw <= 0n ? DEFAULT_PAGE_SIZE : Number(raw > BigInt(MAX_PAGE_SIZE) ? MAX_PAGE_SIZE : raw);
}

/** The smallest id of a page (`start`, `start_id`): ids at or after it are listed. */
export function cursorOf(raw: bigint | undefined): number {
  return raw === undefined || raw <= 0n ? 0 : Number(raw);
}

/** A calendar day as a count of days since 1970-01-01 (the arithmetic of ranges and buckets). */
export const dayNumber = (d: Day) => Date.UTC(d.year, d.month - 1, d.day) / 86_400_000;
const dayOfNumber = (n: number): Day => {
  const t = new Date(n * 86_400_000);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
};

/** The days of a summary, both included, in the caller's time zone. */
export interface ReportRange {
  first: Day;
  last: Day;
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

/** The day after `d`. */
export const nextDay = (d: Day): Day => dayOfNumber(dayNumber(d) + 1);

export type Resolution = "day" | "week" | "month";

/** What one graph point spans: days up to a month, weeks up to 14 weeks (a quarter), months beyond. */
export function resolutionOf(range: ReportRange): Resolution {
  const days = dayNumber(range.last) - dayNumber(range.first) + 1;
  return days <= 31 ? "day" : days <= 98 ? "week" : "month";
}

/**
 * The graph's buckets: the index of a local day's bucket, and how many there are. Weeks begin on
 * the caller's first day of the week (0 Sunday to 6 Saturday); the first and last buckets may be
 * cut by the range.
 */
export function buckets(range: ReportRange, resolution: Resolution, weekStart: number): { count: number; indexOf: (day: number) => number } {
  const first = dayNumber(range.first);
  let indexOf: (day: number) => number;
  if (resolution === "day") indexOf = (day) => day - first;
  else if (resolution === "week") {
    // 1970-01-01 was a Thursday (weekday 4, counting from Sunday).
    const start = Number.isInteger(weekStart) && weekStart >= 0 && weekStart <= 6 ? weekStart : 1;
    const firstWeek = first - (((first + 4 - start) % 7) + 7) % 7;
    indexOf = (day) => Math.floor((day - firstWeek) / 7);
  } else {
    const months = (d: Day) => d.year * 12 + d.month - 1;
    const firstMonth = months(range.first);
    indexOf = (day) => months(dayOfNumber(day)) - firstMonth;
  }
  return { count: indexOf(dayNumber(range.last)) + 1, indexOf };
}

/** A span of constant UTC offset: every instant before `until` (and after the previous span) is `offsetSeconds` ahead of UTC. */
export interface OffsetSpan {
  until: Date;
  offsetSeconds: number;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** Seconds the zone's wall clock is ahead of UTC at the instant (a known zone). */
function offsetAt(ms: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    if (offsetFormats.size > 1000) offsetFormats.clear();
    offsetFormats.set(timeZone, format);
  }
  const p = Object.fromEntries(format.formatToParts(new Date(ms)).map((part) => [part.type, Number(part.value)]));
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 1000);
}

/**
 * The zone's offsets from `from` to `to`, split at each change (daylight saving), so that SQL can
 * read the local day of an instant: a change is looked for week by week (no zone changes twice
 * within a week) and found to the second.
 */
export function offsetSpans(from: Date, to: Date, timeZone: string): OffsetSpan[] {
  const spans: OffsetSpan[] = [];
  const end = to.getTime();
  let at = from.getTime();
  let offset = offsetAt(at, timeZone);
  while (at < end) {
    const next = Math.min(at + 7 * 86_400_000, end);
    if (offsetAt(next, timeZone) === offset) {
      at = next;
      continue;
    }
    // The first second with the new offset lies in (at, next].
    let [low, high] = [at, next];
    while (high - low > 1000) {
      const mid = low + Math.floor((high - low) / 2000) * 1000;
      if (offsetAt(mid, timeZone) === offset) low = mid;
      else high = mid;
    }
    spans.push({ until: new Date(high), offsetSeconds: offset });
    at = high;
    offset = offsetAt(high, timeZone);
  }
  spans.push({ until: to, offsetSeconds: offset });
  return spans;
}

/** Cents earned by spans of seconds, each at its hourly rate in cents (rounded once, on the sum). */
export const amountInCents = (parts: readonly { seconds: number; rateInCents: number }[]) => Math.round(parts.reduce((total, p) => total + p.seconds * p.rateInCents, 0) / 3600);
/** An hourly rate (currency units, as stored) in cents. */
export const centsOf = (rate: number) => Math.round(rate * 100);
