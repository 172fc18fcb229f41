import type { WorkspaceRules } from "../../../gen/accounts/v1/accounts_pb.js";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { compareIds } from "../../../lib/ids.js";
import { constraintUnmet, durationBeyondRange, durationMismatch, entryTimeInvalid, listBoundInvalid, runningWithStop, startDateInvalid, stopBeforeStart, tagActionInvalid, timeEntryLocked } from "../errors.js";

/** What an entry's times are: running (stop null, duration the negative UNIX time of its start) or stopped. */
export interface Timing {
  start: Date;
  stop: Date | null;
  duration: number;
}

/** The latest instant the service stores (durations and running markers stay within safe integers). */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day, checked (2024-02-30 is no day). */
export interface Day {
  year: number;
  month: number;
  day: number;
}

function checkedDay(year: number, month: number, day: number): Day | undefined {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? { year, month, day } : undefined;
}

/** A YYYY-MM-DD day, or undefined. */
export function parseDay(raw: string): Day | undefined {
  const m = DAY.exec(raw.trim());
  return m ? checkedDay(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
}

/** An RFC 3339 instant (`2024-12-13T00:18:26Z`, an offset, fractions), or undefined. */
export function parseInstant(raw: string): Date | undefined {
  const m = INSTANT.exec(raw.trim());
  if (!m) return undefined;
  const day = checkedDay(Number(m[1]), Number(m[2]), Number(m[3]));
  const [h, min, s] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (!day || h > 23 || min > 59 || s > 59) return undefined;
  let offsetMinutes = 0;
  if (m[8].length > 1) {
    const [oh, om] = m[8].slice(1).split(":").map(Number);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[8][0] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Date.UTC(day.year, day.month - 1, day.day, h, min, s) + Math.floor(Number(`0${m[7] ?? ""}`) * 1000) - offsetMinutes * 60_000;
  return ms < 0 || ms > LATEST ? undefined : new Date(ms);
}

/** An entry time from the body: RFC 3339, as sent (to the millisecond); `timing` keeps its whole second. */
export function entryInstant(raw: string, field: string): Date {
  const at = parseInstant(raw);
  if (!at) throw entryTimeInvalid(field);
  return at;
}

/** On creation the date of `start_date` replaces the date of `start`, keeping its UTC time of day. */
export function withStartDate(start: Date, raw: string): Date {
  const day = parseDay(raw);
  if (!day) throw startDateInvalid();
  const out = new Date(start);
  out.setUTCFullYear(day.year, day.month - 1, day.day);
  return out;
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** The whole second an instant falls in: entries keep seconds, never later than what the client sent. */
const wholeSecond = (d: Date) => new Date(unix(d) * 1000);

/**
 * A running entry's duration: the negative UNIX time of its start in whole seconds, the start as
 * the client sent it rounded to the nearest second (the reference: a start at 00:18:26.8 runs
 * with -1734049107), while the stored start is that start's own second.
 */
export const runningDuration = (start: Date) => -Math.round(start.getTime() / 1000);

/**
 * How far apart start + duration and stop may lie: under a second, the client's own rounding (a
 * duration in whole seconds from a start with fractions, a stop truncated to its second).
 */
const AGREEMENT_MS = 1000;

/**
 * Whether start + duration and stop agree. `startSpan` is how much later the client's start may
 * have been than `start`: 0 for a start the request sends, 999 ms for a stored one (entries keep
 * whole seconds, so the fraction the client sent with it is gone).
 */
function agree(start: Date, startSpan: number, duration: number, stop: Date): boolean {
  const earliest = start.getTime() + duration * 1000 - stop.getTime();
  const latest = earliest + startSpan;
  const gap = earliest > 0 ? earliest : latest < 0 ? -latest : 0;
  return gap < AGREEMENT_MS;
}

/**
 * An entry's times from a start and what the body gives, each time kept to its whole second: a
 * negative duration (e.g. -1) or neither stop nor duration make it running; a stop makes it
 * stopped (a duration given too must agree, start + duration = stop within a second; its
 * duration is then the stored stop - start); a duration alone puts the stop at start + duration.
 * `stored` says the start is the entry's stored one (the request sent none).
 */
export function timing(start: Date, stop: Date | undefined, duration: number | undefined, stored = false): Timing {
  const from = wholeSecond(start);
  if (stop) {
    if (duration !== undefined && !agree(start, stored ? AGREEMENT_MS - 1 : 0, duration, stop)) throw duration < 0 ? runningWithStop() : durationMismatch();
    const to = wholeSecond(stop);
    if (to < from) throw stopBeforeStart();
    return { start: from, stop: to, duration: unix(to) - unix(from) };
  }
  if (duration !== undefined && duration >= 0) {
    const end = from.getTime() + duration * 1000;
    if (end > LATEST) throw durationBeyondRange();
    return { start: from, stop: new Date(end), duration };
  }
  return { start: from, stop: null, duration: runningDuration(start) };
}

/**
 * The times after an update: a stop or duration given decide as on creation; a new start alone
 * keeps a running entry running and a stopped entry's stop (its duration follows); no time at all
 * keeps them as they are (a running entry's duration too).
 */
export function updatedTiming(existing: Timing, change: { start?: Date; stop?: Date; duration?: number }): Timing {
  const start = change.start ?? existing.start;
  const stored = change.start === undefined;
  if (change.stop !== undefined || change.duration !== undefined) return timing(start, change.stop, change.duration, stored);
  if (existing.stop === null) return stored ? { start: existing.start, stop: null, duration: existing.duration } : timing(start, undefined, undefined);
  return timing(start, existing.stop, undefined, stored);
}

/** Stopping at `now`: never before the start (an entry started in the future stops with duration 0). */
export function stoppedAt(existing: Timing, now: Date): Timing {
  const stop = new Date(Math.max(existing.start.getTime(), Math.floor(now.getTime() / 1000) * 1000));
  return timing(existing.start, stop, undefined);
}

/** What the workspace's time entry constraints look at. */
export interface ConstrainedEntry {
  description: string | null;
  project_id: bigint | null;
  task_id: bigint | null;
  tag_ids: bigint[];
}

/**
 * "Lock Time Entries": a member cannot create, change, stop or delete an entry that starts before
 * the workspace's lock date (the entry before a change and after it); admins can.
 */
export function checkUnlocked(scope: { admin: boolean; rules: WorkspaceRules }, ...starts: Date[]): void {
  const lockedBefore = scope.rules.timeEntriesLockedBefore;
  if (scope.admin || !lockedBefore) return;
  const lock = timestampMs(lockedBefore);
  if (starts.some((start) => start.getTime() < lock)) throw timeEntryLocked(new Date(lock));
}

/** The workspace's time entry constraints (when enabled): each required part, with its 400. */
export function checkConstraints(rules: WorkspaceRules, entry: ConstrainedEntry): void {
  if (!rules.constraintsEnabled) return;
  if (rules.descriptionPresent && !entry.description?.trim()) throw constraintUnmet("description");
  if (rules.projectPresent && entry.project_id === null) throw constraintUnmet("project");
  if (rules.taskPresent && entry.task_id === null) throw constraintUnmet("task");
  if (rules.tagPresent && entry.tag_ids.length === 0) throw constraintUnmet("tag");
}

/** How given tags change an entry's: replace them (no tag_action), add to them or delete from them. */
export type TagAction = "set" | "add" | "delete";

export function tagAction(raw: string | undefined): TagAction {
  if (raw === undefined || raw === "") return "set";
  const action = raw.trim().toLowerCase();
  if (action !== "add" && action !== "delete") throw tagActionInvalid();
  return action;
}

/** An entry's tag ids after an action (order kept, no repeats). */
export function applyTagAction(current: bigint[], action: TagAction, given: bigint[]): bigint[] {
  if (action === "set") return [...new Set(given)];
  if (action === "add") return [...new Set([...current, ...given])];
  const gone = new Set(given);
  return current.filter((id) => !gone.has(id));
}

/** The lists' order: by start, newest first, then by id. */
export const newestFirst = (a: { start: Date; id: bigint }, b: { start: Date; id: bigint }) => b.start.getTime() - a.start.getTime() || compareIds(b.id, a.id);

/** How long the list without parameters looks back (the real API's recent entries). */
export const RECENT_DAYS = 9;

const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

/** The zone's wall-clock formatter (made once per zone: building one costs more than a query), or null for an unknown zone. */
function zoneFormat(timeZone: string): Intl.DateTimeFormat | null {
  let format = zoneFormats.get(timeZone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    } catch {
      format = null;
    }
    if (zoneFormats.size > 1000) zoneFormats.clear();
    zoneFormats.set(timeZone, format);
  }
  return format;
}

/** A valid IANA zone name, else UTC (a profile without a zone, or one the runtime does not know). */
export function knownZone(timeZone: string): string {
  return timeZone && zoneFormat(timeZone) ? timeZone : "UTC";
}

/** The UTC instant a local wall-clock time of `timeZone` (a known zone) stands for (the zone's offset at that moment). */
export function zonedTime(day: Day, timeZone: string): Date {
  const format = zoneFormat(timeZone)!;
  const wall = Date.UTC(day.year, day.month - 1, day.day);
  const offsetAt = (ms: number) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]));
    return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) - ms;
  };
  // Twice: the offset at the first guess may differ from the one at the answer (a DST change that day).
  const guess = wall - offsetAt(wall);
  return new Date(wall - offsetAt(guess));
}

/** A list bound: RFC 3339 as given, a date alone at the start of that day in the user's zone. */
export function listBound(raw: string, field: string, timeZone: string): Date {
  const at = parseInstant(raw);
  if (at) return at;
  const day = parseDay(raw);
  if (!day) throw listBoundInvalid(field);
  return zonedTime(day, timeZone);
}
