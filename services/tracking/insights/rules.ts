import { rowId } from "../../../lib/ids.js";
import { insightCurrencyRequired, insightIdsMissing, insightRangeTooLarge, insightResolutionInvalid, insightTooManyIds, rangeOutOfBounds, rangeParameterFormat } from "../errors.js";
import { currencyCode } from "../projects/rules.js";
import { buckets, dayNumber, FIRST_REPORT_DAY, LAST_REPORT_DAY, resolutionOf, type Resolution } from "../reporting.js";
import type { ReportInput } from "../reports/context.js";
import { addDays, dayText, instantAt, type ReportRange } from "../reports/rules.js";
import { parseDay } from "../time-entries/rules.js";

/**
 * The insights' rules, pure: the graph's resolution and its periods, the currency
 * a report is in, the data trends' ids, the project trends' previous period and variations. The
 * range, filters, rounding and rates are the reports' (reports/rules.ts, reports/context.ts).
 */

// ---------------------------------------------------------------------------------------------
// Resolution and periods.

/** Days a range spans, both ends included. */
export const daysOf = (range: Pick<ReportRange, "first" | "last">) => dayNumber(range.last) - dayNumber(range.first) + 1;

/** What the graphs take. */
export const GRAPH_RESOLUTIONS: readonly Resolution[] = ["day", "week", "month"];
/** What the employees' profitability takes (checked only: its file holds the range's totals). */
export const EMPLOYEE_RESOLUTIONS = [...GRAPH_RESOLUTIONS, "quarter"] as const;

/** The most days a graph by day spans (a quarter's): a longer range is graphed by week or month. */
export const MAX_DAILY_DAYS = 92;

/** A body's `resolution` (any case), one of those allowed; undefined when not given. */
function chosen<T extends string>(raw: string | undefined, allowed: readonly T[]): T | undefined {
  const value = raw?.trim().toLowerCase();
  if (!value) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw insightResolutionInvalid(allowed);
  return value as T;
}

/** A graph's `resolution`; undefined when not given (the range decides). */
export const resolutionChoice = (raw: string | undefined) => chosen(raw, GRAPH_RESOLUTIONS);
/** The employees' `resolution`, checked. */
export const employeeResolution = (raw: string | undefined) => chosen(raw, EMPLOYEE_RESOLUTIONS);

/** The resolution a graph of the range is drawn at: the one chosen (by day at most 92 days), else by the range's length. */
export function graphResolution(choice: Resolution | undefined, range: ReportRange): Resolution {
  if (!choice) return resolutionOf(range);
  if (choice === "day" && daysOf(range) > MAX_DAILY_DAYS) throw insightRangeTooLarge();
  return choice;
}

/** A graph's periods: how many, which one a local day (days since 1970-01-01) is in, and each one's first day in the range. */
export interface Periods {
  resolution: Resolution;
  count: number;
  indexOf(day: number): number;
  /** YYYY-MM-DD of each period's first day within the range (the first is the range's first day). */
  dates: string[];
}

/**
 * The periods of the range (the reports' buckets): days, weeks from the caller's first day of the
 * week, calendar months; the first and last are cut by the range.
 */
export function periodsOf(range: ReportRange, resolution: Resolution, weekStart: number): Periods {
  const first = dayNumber(range.first);
  const last = dayNumber(range.last);
  const { count, indexOf } = buckets(range, resolution, weekStart);
  const dates: string[] = [];
  for (let day = first; day <= last; day++) dates[indexOf(day)] ??= dayText(addDays(range.first, day - first));
  // An entry's local day lies in the range; the clamp keeps any other in the graph's ends.
  return { resolution, count, indexOf: (day) => Math.min(Math.max(indexOf(day), 0), count - 1), dates };
}

// ---------------------------------------------------------------------------------------------
// Currency and ids.

/** The currency a report is in: required, three letters (upper-cased). */
export function requiredCurrency(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === "") throw insightCurrencyRequired();
  return currencyCode(raw);
}

/** At most this many projects in one projects' data trend. */
export const MAX_TREND_PROJECTS = 5;

/** The projects' data trend names one to five projects (repeats count once); ids no row can have match nothing. */
export function trendProjectIds(ids: readonly bigint[]): bigint[] {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) throw insightIdsMissing();
  if (distinct.length > MAX_TREND_PROJECTS) throw insightTooManyIds(MAX_TREND_PROJECTS);
  return distinct.map(rowId).filter((id): id is bigint => id !== undefined);
}

// ---------------------------------------------------------------------------------------------
// The project trends.

/**
 * The period a project trend compares the range with: as many days, from `previous_period_start`
 * (a day within the reports' bounds) or, by default, the days just before the range.
 */
export function previousPeriod(range: ReportRange, raw: string | undefined, zone: string): ReportRange {
  const days = daysOf(range);
  let first = addDays(range.first, -days);
  if (raw !== undefined && raw.trim() !== "") {
    const day = parseDay(raw.trim());
    if (!day) throw rangeParameterFormat("previous_period_start");
    const n = dayNumber(day);
    if (n < dayNumber(parseDay(FIRST_REPORT_DAY)!) || n > dayNumber(parseDay(LAST_REPORT_DAY)!)) throw rangeOutOfBounds("previous_period_start", FIRST_REPORT_DAY, LAST_REPORT_DAY);
    first = day;
  }
  const last = addDays(first, days - 1);
  return { first, last, from: instantAt(first, 0, zone), to: instantAt(addDays(first, days), 0, zone) };
}

/** The change from `previous` to `current` in percent (two decimals); null when there was nothing before. */
export function variation(current: number, previous: number): number | null {
  if (previous === 0) return null;
  return Math.round(((current - previous) / previous) * 10_000) / 100;
}

// ---------------------------------------------------------------------------------------------
// The bodies as the reports' input.

/** An insight's body as the reports' filters (reports/context.ts): the fields it has, the others empty. */
export function reportInput(body: Partial<ReportInput>): ReportInput {
  return {
    startDate: body.startDate,
    endDate: body.endDate,
    userIds: body.userIds ?? [],
    groupIds: body.groupIds ?? [],
    timeEntryIds: [],
    projectIds: body.projectIds,
    clientIds: body.clientIds,
    tagIds: body.tagIds,
    taskIds: body.taskIds,
    billable: body.billable,
    rounding: body.rounding,
    roundingMinutes: body.roundingMinutes,
  };
}
