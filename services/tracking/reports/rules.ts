import { rowId } from "../../../lib/ids.js";
import {
  rangeOutOfBounds,
  rangeParameterFormat,
  rangeParameterRequired,
  rangeReversed,
  reportDurationsReversed,
  reportIdsInvalid,
  reportNegative,
  reportParameterUnsupported,
  reportRangeTooLong,
  reportValueNotAllowed,
} from "../errors.js";
import { dayNumber, dayOfNumber, FIRST_REPORT_DAY, LAST_REPORT_DAY, nextDay, offsetSecondsAt, type Resolution } from "../reporting.js";
import { parseDay, type Day } from "../time-entries/rules.js";

/**
 * The reports' rules, pure: the date range in the caller's zone, the filters of a body, rounding,
 * the groupings of the summary, the order and pages of the detailed report, the totals'
 * resolution. Amounts and the graph's buckets are the report helpers' (report-filters/rules.ts),
 * so both answer the same cents for the same seconds.
 */

// ---------------------------------------------------------------------------------------------
// The range.

/** The longest range a report spans, in days (both ends included): a year, leap day included. */
export const MAX_RANGE_DAYS = 366;
/** The days a range spans by default, and always for the weekly report. */
export const WEEK_DAYS = 7;

/** A report's days (both included, in the caller's zone) and the instants entries start within: [from, to). */
export interface ReportRange {
  first: Day;
  last: Day;
  from: Date;
  to: Date;
}

/** YYYY-MM-DD of a day. */
export const dayText = (d: Day) => `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

/** The day `n` days after `d`. */
export const addDays = (d: Day, n: number): Day => dayOfNumber(dayNumber(d) + n);

/** Seconds the zone's wall clock is ahead of UTC at an instant (reporting.ts). */
export { offsetSecondsAt };

/** The instant of a wall-clock time (seconds into `day`) in `zone`; a time a DST change skips moves on by the change. */
export function instantAt(day: Day, secondsOfDay: number, zone: string): Date {
  const wall = Date.UTC(day.year, day.month - 1, day.day) + secondsOfDay * 1000;
  const guess = wall - offsetSecondsAt(new Date(wall), zone) * 1000;
  return new Date(wall - offsetSecondsAt(new Date(guess), zone) * 1000);
}

/** The zone's wall clock at an instant, whole seconds: `2025-03-15T09:30:00.000Z` read as local. */
const wallClock = (at: Date, offset: number) => new Date(Math.floor(at.getTime() / 1000) * 1000 + offset * 1000).toISOString();

/** `00` to `59`. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));

/**
 * The day (`YYYY-MM-DD`) and time (`HH:MM:SS`) on the zone's clock of the many instants of a file
 * in one zone: the offset as `offsetSecondsAt` keeps it (once per UTC day), each local day's text
 * made once, the time from its seconds; no ISO text made and cut per instant.
 */
export function localClock(zone: string): (at: Date) => [string, string] {
  const days = new Map<number, string>();
  return (at) => {
    const wall = Math.floor(at.getTime() / 1000) + offsetSecondsAt(at, zone);
    const n = Math.floor(wall / 86_400);
    const second = wall - n * 86_400;
    let day = days.get(n);
    if (day === undefined) days.set(n, (day = dayText(dayOfNumber(n))));
    return [day, `${TWO_DIGITS[Math.floor(second / 3600)]}:${TWO_DIGITS[Math.floor(second / 60) % 60]}:${TWO_DIGITS[second % 60]}`];
  };
}

/** The day (`YYYY-MM-DD`) and time (`HH:MM:SS`) of an instant on the zone's clock (whole seconds): a file's cells. */
export const localDayAndTime = (at: Date, zone: string) => localClock(zone)(at);

/** RFC 3339 with the offset the zone has at that instant: `2025-03-15T09:30:00+09:00`. */
export function localTimeText(at: Date, zone: string): string {
  const offset = offsetSecondsAt(at, zone);
  const local = wallClock(at, offset).slice(0, 19);
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 3600)).padStart(2, "0");
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, "0");
  return `${local}${offset < 0 ? "-" : "+"}${hh}:${mm}`;
}

const TIME_OF_DAY = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** `startTime`/`endTime`: HH:MM or HH:MM:SS as seconds into the day. */
export function timeOfDay(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const m = TIME_OF_DAY.exec(raw.trim());
  const [h, min, s] = m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [];
  if (!m || h! > 23 || min! > 59 || s! > 59) throw rangeParameterFormat(name);
  return h! * 3600 + min! * 60 + s!;
}

function reportDay(raw: string, name: string): Day {
  const day = parseDay(raw);
  if (!day) throw rangeParameterFormat(name);
  const n = dayNumber(day);
  if (n < dayNumber(parseDay(FIRST_REPORT_DAY)!) || n > dayNumber(parseDay(LAST_REPORT_DAY)!)) throw rangeOutOfBounds(name, FIRST_REPORT_DAY, LAST_REPORT_DAY);
  return day;
}

/** What a body says of its range. */
export interface RangeInput {
  startDate?: string;
  endDate?: string;
  startTime?: string;
  endTime?: string;
}

/**
 * The days of a report: `start_date` is required; `end_date` (included) is six days after it when
 * not given, never before it, at most a year after it. The weekly report spans seven days: an
 * `end_date` other than the seventh day is not supported.
 */
export function reportDays(input: RangeInput, weekly: boolean): { first: Day; last: Day } {
  if (input.startDate === undefined || input.startDate.trim() === "") throw rangeParameterRequired("start_date");
  const first = reportDay(input.startDate, "start_date");
  const endGiven = input.endDate !== undefined && input.endDate.trim() !== "";
  const last = endGiven ? reportDay(input.endDate!, "end_date") : addDays(first, WEEK_DAYS - 1);
  if (weekly && dayNumber(last) !== dayNumber(first) + WEEK_DAYS - 1) throw reportParameterUnsupported("end_date");
  if (dayNumber(last) < dayNumber(first)) throw rangeReversed();
  if (dayNumber(last) - dayNumber(first) + 1 > MAX_RANGE_DAYS) throw reportRangeTooLong(MAX_RANGE_DAYS);
  return { first, last };
}

/**
 * The instants of the days in the caller's zone: from `startTime` (midnight by default) on the first
 * day up to `endTime` (included, to the second; the day's end by default) on the last.
 */
export function reportRange(input: RangeInput, zone: string, weekly = false): ReportRange {
  const { first, last } = reportDays(input, weekly);
  const startSeconds = timeOfDay(input.startTime, "startTime") ?? 0;
  const endSeconds = timeOfDay(input.endTime, "endTime");
  const from = instantAt(first, startSeconds, zone);
  const to = endSeconds === undefined ? instantAt(nextDay(last), 0, zone) : instantAt(last, endSeconds + 1, zone);
  if (to <= from) throw rangeReversed();
  return { first, last, from, to };
}

// ---------------------------------------------------------------------------------------------
// Filters.

/** An id filter: these ids, and/or "without" (`null` in the body's list). */
export interface IdChoice {
  ids: bigint[];
  none: boolean;
}

/**
 * A list that may name "without" (project_ids, client_ids, tag_ids, task_ids): integers and null.
 * Empty or not given: no filter. An id no row can have matches nothing.
 */
export function idChoice(list: readonly unknown[] | undefined, name: string): IdChoice | undefined {
  if (!list || list.length === 0) return undefined;
  const out: IdChoice = { ids: [], none: false };
  for (const value of list) {
    if (value === null) out.none = true;
    else if (typeof value === "number" && Number.isInteger(value)) {
      const id = rowId(BigInt(value));
      if (id !== undefined && !out.ids.includes(id)) out.ids.push(id);
    } else throw reportIdsInvalid(name);
  }
  return out;
}

/** A plain id list (user_ids, group_ids, time_entry_ids): undefined when empty; ids no row can have match nothing. */
export function idList(ids: readonly bigint[]): bigint[] | undefined {
  if (ids.length === 0) return undefined;
  return [...new Set(ids.map(rowId).filter((id): id is bigint => id !== undefined))];
}

/** The entries' own duration bounds (seconds, before rounding). */
export function durationBounds(min: bigint | undefined, max: bigint | undefined): { min?: number; max?: number } {
  if (min !== undefined && min < 0n) throw reportNegative("min_duration_seconds");
  if (max !== undefined && max < 0n) throw reportNegative("max_duration_seconds");
  if (min !== undefined && max !== undefined && max < min) throw reportDurationsReversed();
  return { min: min === undefined ? undefined : Number(min), max: max === undefined ? undefined : Number(max) };
}

// ---------------------------------------------------------------------------------------------
// Rounding.

/** The reference's rounding steps, in minutes (0: no rounding). */
export const ROUNDING_MINUTES = [0, 1, 5, 6, 10, 12, 15, 30, 60, 240] as const;
/** -1 down, 0 to the nearest step (half up), 1 up: the workspace setting's values. */
export const ROUNDING_MODES = [-1, 0, 1] as const;

export interface Rounding {
  /** The step, in seconds. */
  step: number;
  mode: -1 | 0 | 1;
}

/** Rounding of each entry's duration; none unless `rounding_minutes` names a step. */
export function rounding(mode: number | undefined, minutes: number | undefined): Rounding | undefined {
  if (minutes !== undefined && !(ROUNDING_MINUTES as readonly number[]).includes(minutes)) throw reportValueNotAllowed("rounding_minutes", ROUNDING_MINUTES.map(String));
  if (mode !== undefined && !(ROUNDING_MODES as readonly number[]).includes(mode)) throw reportValueNotAllowed("rounding", ROUNDING_MODES.map(String));
  if (!minutes) return undefined;
  return { step: minutes * 60, mode: (mode ?? 0) as Rounding["mode"] };
}

/** One entry's seconds rounded (what the SQL of reports/filters.ts computes, for the rules' tests). */
export function roundedSeconds(seconds: number, r: Rounding | undefined): number {
  if (!r) return seconds;
  const below = seconds - (seconds % r.step);
  if (r.mode < 0 || below === seconds) return below;
  if (r.mode > 0) return below + r.step;
  return seconds - below >= r.step / 2 ? below + r.step : below;
}

// ---------------------------------------------------------------------------------------------
// The summary's groupings.

export type Dimension = "projects" | "clients" | "users" | "tags" | "tasks" | "time_entries";

/** Each grouping and the sub-groupings it takes (the first is its default). */
export const SUB_GROUPINGS: Record<string, readonly Dimension[]> = {
  projects: ["time_entries", "tasks", "users"],
  clients: ["time_entries", "tasks", "projects", "users"],
  users: ["time_entries", "tasks", "projects", "clients"],
  tags: ["time_entries", "tasks", "projects", "clients", "users"],
};

/** The grouping (projects by default) and sub-grouping (time_entries by default) of a summary. */
export function summaryGrouping(grouping: string | undefined, subGrouping: string | undefined): { grouping: Dimension; subGrouping: Dimension } {
  const g = grouping?.trim() || "projects";
  const allowed = SUB_GROUPINGS[g];
  if (!allowed) throw reportValueNotAllowed("grouping", Object.keys(SUB_GROUPINGS));
  const s = subGrouping?.trim() || allowed[0];
  if (!allowed.includes(s as Dimension)) throw reportValueNotAllowed("sub_grouping", allowed);
  return { grouping: g as Dimension, subGrouping: s as Dimension };
}

// ---------------------------------------------------------------------------------------------
// The detailed report's order and pages.

export const ORDER_FIELDS = ["date", "user", "duration", "description", "last_update"] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];

export interface DetailedOrder {
  by: OrderField;
  descending: boolean;
}

/** `order_by` (date by default) and `order_dir` (ASC by default; either case). */
export function detailedOrder(by: string | undefined, dir: string | undefined): DetailedOrder {
  const field = by?.trim() || "date";
  if (!(ORDER_FIELDS as readonly string[]).includes(field)) throw reportValueNotAllowed("order_by", ORDER_FIELDS);
  const direction = (dir?.trim() || "ASC").toUpperCase();
  if (direction !== "ASC" && direction !== "DESC") throw reportValueNotAllowed("order_dir", ["ASC", "DESC"]);
  return { by: field as OrderField, descending: direction === "DESC" };
}

export const DEFAULT_DETAILED_PAGE = 50;
export const MAX_DETAILED_PAGE = 1000;

/** Where a page starts: a row number, and (date order) the first entry's start and id to seek from. */
export interface PageStart {
  size: number;
  rowNumber: number;
  seek?: { timestamp: number; id: bigint };
}

/** `page_size` (50 by default, at most 1000) and the next page's position as the previous answer's headers gave it. */
export function pageStart(input: { pageSize?: number; firstId?: bigint; firstRowNumber?: bigint; firstTimestamp?: bigint }, order: DetailedOrder): PageStart {
  if (input.pageSize !== undefined && input.pageSize < 0) throw reportNegative("page_size");
  if (input.firstRowNumber !== undefined && input.firstRowNumber < 0n) throw reportNegative("first_row_number");
  const size = !input.pageSize ? DEFAULT_DETAILED_PAGE : Math.min(input.pageSize, MAX_DETAILED_PAGE);
  const rowNumber = input.firstRowNumber && input.firstRowNumber > 0n ? Number(input.firstRowNumber) : 1;
  const id = input.firstId === undefined ? undefined : rowId(input.firstId);
  const seek = order.by === "date" && id !== undefined && input.firstTimestamp !== undefined ? { timestamp: Number(input.firstTimestamp), id } : undefined;
  return { size, rowNumber, seek };
}

// ---------------------------------------------------------------------------------------------
// The totals.

export const RESOLUTIONS: readonly Resolution[] = ["day", "week", "month"];

/** `granularity` overrides `resolution`; neither: undefined (the range's length decides). */
export function totalsResolution(granularity: string | undefined, resolution: string | undefined): Resolution | undefined {
  for (const [name, value] of [["granularity", granularity], ["resolution", resolution]] as const) {
    const v = value?.trim();
    if (!v) continue;
    if (!(RESOLUTIONS as readonly string[]).includes(v)) throw reportValueNotAllowed(name, RESOLUTIONS);
    return v as Resolution;
  }
  return undefined;
}

export const DISPLAY_MODES = ["date_only", "time_only", "date_time"] as const;

/** How a detailed report's times are shown in its PDF: dates, times, or both. */
export type DisplayMode = (typeof DISPLAY_MODES)[number];

/** The PDF's `display_mode`: date_time by default (the reference also calls it date_and_time). */
export function displayMode(raw: string | undefined): DisplayMode {
  const mode = raw?.trim() || "date_time";
  if (mode === "date_and_time") return "date_time";
  if (!(DISPLAY_MODES as readonly string[]).includes(mode)) throw reportValueNotAllowed("display_mode", DISPLAY_MODES);
  return mode as DisplayMode;
}
