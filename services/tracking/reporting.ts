import { isMysql, type Knex } from "../../lib/db.js";
import { noFilterParameter } from "./errors.js";
import type { Day } from "./time-entries/rules.js";

/**
 * What the two report resources (reports/, report-filters/) compute with alike: calendar days and
 * ranges, the caller's zone as spans of one offset (so SQL can read an entry's local day), the
 * graph's buckets, and amounts in cents.
 */

/** The days a summary's range may name, both included (the reference's bounds). */
export const FIRST_REPORT_DAY = "2006-01-01";
export const LAST_REPORT_DAY = "2030-01-01";

/** A body value that says something: a non-empty list, a non-blank text, any other value given. */
const isGiven = (value: unknown) => (Array.isArray(value) ? value.length > 0 : typeof value === "string" ? value.trim() !== "" : value !== undefined);

/** The search lists and the lists that need a subject answer 400 when the body names nothing. */
export function checkSomeGiven(...values: unknown[]): void {
  if (!values.some(isGiven)) throw noFilterParameter();
}

/** The days of a summary, both included, in the caller's time zone. */
export interface ReportRange {
  first: Day;
  last: Day;
}

/** A calendar day as a count of days since 1970-01-01 (the arithmetic of ranges and buckets). */
export const dayNumber = (d: Day) => Date.UTC(d.year, d.month - 1, d.day) / 86_400_000;
/** The calendar day of a day number (the inverse of `dayNumber`). */
export const dayOfNumber = (n: number): Day => {
  const t = new Date(n * 86_400_000);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
};

/** The day after `d`. */
export const nextDay = (d: Day): Day => dayOfNumber(dayNumber(d) + 1);

export type Resolution = "day" | "week" | "month";

/** What one graph point spans: days up to a month, weeks up to 14 weeks (a quarter), months beyond. */
export function resolutionOf(range: ReportRange): Resolution {
  const days = dayNumber(range.last) - dayNumber(range.first) + 1;
  return days <= 31 ? "day" : days <= 98 ? "week" : "month";
}

/** A graph's buckets: how many, and the index of a local day's bucket. */
export interface Buckets {
  count: number;
  indexOf: (day: number) => number;
}

/**
 * The graph's buckets of a range at a resolution. Weeks begin on the caller's first day of the
 * week (0 Sunday to 6 Saturday); the first and last buckets may be cut by the range.
 */
export function buckets(range: ReportRange, resolution: Resolution, weekStart: number): Buckets {
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

/** Per zone and UTC day (days since 1970-01-01): the offset the whole day has, or null for a day with a change. */
const dayOffsets = new Map<string, Map<number, number | null>>();

/**
 * Seconds the zone's wall clock is ahead of UTC at an instant. A report's answer names its
 * entries' times with their offsets (four per entry), and asking Intl for each was most of a page's
 * time: the offset is read once per zone and UTC day instead, at the day's start and the next
 * day's, and where the two agree the whole day has it (no zone changes twice within a day);
 * only an instant on a day of change is asked of Intl itself.
 */
export function offsetSecondsAt(at: Date, timeZone: string): number {
  const ms = at.getTime();
  const day = Math.floor(ms / 86_400_000);
  let days = dayOffsets.get(timeZone);
  if (!days) {
    if (dayOffsets.size > 1000) dayOffsets.clear();
    dayOffsets.set(timeZone, (days = new Map()));
  }
  let offset = days.get(day);
  if (offset === undefined) {
    const first = offsetAt(day * 86_400_000, timeZone);
    offset = offsetAt((day + 1) * 86_400_000, timeZone) === first ? first : null;
    if (days.size > 100_000) days.clear();
    days.set(day, offset);
  }
  return offset ?? offsetAt(ms, timeZone);
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

/** SQL and its bound values. */
export interface Sql {
  sql: string;
  bindings: readonly Knex.Value[];
}

/**
 * The local day (days since 1970-01-01 on the zone's calendar) an entry starts on: its UNIX seconds
 * plus the offset of the span it falls in, in whole days. Each engine reads a stored time its own
 * way (SQLite: milliseconds; MySQL: a DATETIME in UTC).
 */
export function localDaySql(db: Knex, spans: OffsetSpan[]): Sql {
  const [seconds, div] = isMysql(db) ? ["TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', te.start)", "DIV"] : ["(te.start / 1000)", "/"];
  const day = (offset: number) => `((${seconds} + ${Math.trunc(offset)}) ${div} 86400)`;
  const last = spans[spans.length - 1];
  const cases = spans.slice(0, -1).map((s) => `WHEN te.start < ? THEN ${day(s.offsetSeconds)}`);
  return { sql: cases.length ? `CASE ${cases.join(" ")} ELSE ${day(last.offsetSeconds)} END` : day(last.offsetSeconds), bindings: spans.slice(0, -1).map((s) => s.until) };
}

