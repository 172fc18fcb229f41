import type { JsonValue } from "@bufbuild/protobuf";
import {
  timesheetBodyInvalid, timesheetCommentNotRejection, timesheetEndDatePeriodicity, timesheetInvalidDate, timesheetInvalidId, timesheetInvalidPeriodicity, timesheetInvalidStatus,
  timesheetInvalidTransition, timesheetReminderInvalid,
} from "../errors.js";

export const PERIODICITIES = ["weekly", "monthly"] as const;
export const STATUSES = ["pending", "submitted", "approved", "rejected"] as const;
export const REMINDER_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
/** Working hours a period expects: 8 hours each Monday to Friday. */
export const WORKDAY_MINUTES = 8 * 60;
/** The list's pages (the reference: 20 by default, 20 again above 1000). */
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 1000;
/** The most periods of one setup a list walks. */
export const MAX_PERIODS = 2000;

const DAY_MS = 86_400_000;

/** A YYYY-MM-DD day, or "Invalid date". */
export function timesheetDate(raw: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw.trim());
  const d = m ? new Date(`${raw.trim()}T00:00:00Z`) : undefined;
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== raw.trim()) throw timesheetInvalidDate();
  return raw.trim();
}

export const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

function addMonths(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString().slice(0, 10);
}

/** A periodicity the setups take. */
export function periodicity(raw: string | undefined): string {
  const value = raw?.trim().toLowerCase() ?? "";
  if (!(PERIODICITIES as readonly string[]).includes(value)) throw timesheetInvalidPeriodicity();
  return value;
}

/** A setup's first day; a monthly setup's periods start on the same day each month, so on the 1st to the 28th. */
export function setupStart(raw: string | undefined, periodicityValue: string, today: string): string {
  const day = raw === undefined || raw === "" ? today : timesheetDate(raw);
  if (periodicityValue === "monthly" && Number(day.slice(8)) > 28) throw timesheetInvalidDate();
  return day;
}

export function reminderDay(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const value = raw.trim().toLowerCase();
  if (!(REMINDER_DAYS as readonly string[]).includes(value)) throw timesheetReminderInvalid("reminder_day");
  return value;
}

/** HH:MM (24 hours). */
export function reminderTime(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const m = /^([01]\d|2[0-3]):([0-5]\d)(:00)?$/.exec(raw.trim());
  if (!m) throw timesheetReminderInvalid("reminder_time");
  return `${m[1]}:${m[2]}`;
}

export interface Period {
  start: string;
  end: string;
}

type SetupDates = { periodicity: string; start_date: string; end_date: string | null };

/** The n-th period of a setup (from 0), cut at the setup's end. */
export function nthPeriod(setup: SetupDates, n: number): Period {
  const start = setup.periodicity === "monthly" ? addMonths(setup.start_date, n) : addDays(setup.start_date, 7 * n);
  const next = setup.periodicity === "monthly" ? addMonths(setup.start_date, n + 1) : addDays(setup.start_date, 7 * (n + 1));
  const end = addDays(next, -1);
  return { start, end: setup.end_date !== null && setup.end_date < end ? setup.end_date : end };
}

/** The periods that have begun by `today` (and before the setup's end), oldest first. */
export function begunPeriods(setup: SetupDates, today: string): Period[] {
  const out: Period[] = [];
  for (let n = 0; n < MAX_PERIODS; n++) {
    const p = nthPeriod(setup, n);
    if (p.start > today || (setup.end_date !== null && p.start > setup.end_date)) break;
    out.push(p);
  }
  return out;
}

/** The period of a setup that starts on `raw`, or "Invalid date". */
export function periodStartingOn(setup: SetupDates, raw: string): Period {
  const day = timesheetDate(raw);
  if (day < setup.start_date || (setup.end_date !== null && day > setup.end_date)) throw timesheetInvalidDate();
  for (let n = 0; n < MAX_PERIODS; n++) {
    const p = nthPeriod(setup, n);
    if (p.start === day) return p;
    if (p.start > day) break;
  }
  throw timesheetInvalidDate();
}

/** An end date must close a period: the last day of one of the setup's periods. */
export function checkEndDate(setup: SetupDates, end: string): void {
  if (end < setup.start_date) throw timesheetInvalidDate();
  for (let n = 0; n < MAX_PERIODS; n++) {
    const p = nthPeriod({ ...setup, end_date: null }, n);
    if (p.end === end) return;
    if (p.end > end) break;
  }
  throw timesheetEndDatePeriodicity();
}

/** Minutes a period expects: 8 hours per weekday. */
export function workingMinutes(p: Period): number {
  let minutes = 0;
  for (let day = p.start; day <= p.end; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday !== 0 && weekday !== 6) minutes += WORKDAY_MINUTES;
  }
  return minutes;
}

export function timesheetStatus(raw: string | undefined): string {
  const value = raw?.trim().toLowerCase() ?? "";
  if (!(STATUSES as readonly string[]).includes(value)) throw timesheetInvalidStatus();
  return value;
}

/** Comma-separated ids ("Invalid ID" for anything else). */
export function idList(raw: string): bigint[] {
  if (raw.trim() === "") return [];
  return raw.split(",").map((part) => {
    const t = part.trim();
    if (!/^\d{1,15}$/.test(t) || BigInt(t) === 0n) throw timesheetInvalidId();
    return BigInt(t);
  });
}

export type Role = "member" | "approver";

/**
 * The moves of a timesheet: its member submits a pending or rejected one and may withdraw a
 * submitted one; an approver (or a workspace admin) approves or rejects a submitted one, and
 * reopens an approved or rejected one (back to pending). A rejection comment goes with a rejection only.
 */
export function checkTransition(from: string, to: string, roles: Set<Role>, comment: string | undefined): void {
  if (comment !== undefined && comment !== "" && to !== "rejected") throw timesheetCommentNotRejection();
  const allowed: Record<Role, [string, string][]> = {
    member: [["pending", "submitted"], ["rejected", "submitted"], ["submitted", "pending"]],
    approver: [["submitted", "approved"], ["submitted", "rejected"], ["approved", "pending"], ["rejected", "pending"], ["approved", "rejected"]],
  };
  for (const role of roles) if (allowed[role].some(([a, b]) => a === from && b === to)) return;
  throw timesheetInvalidTransition();
}

/** The most timesheets one batch names. */
export const MAX_BATCH = 200;

/** A timesheet a batch names, with the change asked of it. */
export interface NamedChange {
  setupId: bigint;
  startDate: string;
  status?: string;
  rejectionComment?: string;
}

/**
 * A batch body: an array of `{timesheet_setup_id, start_date, status?, rejection_comment?}`
 * (at most MAX_BATCH); an id that is no positive integer is "Invalid ID", a date that is no string "Invalid date".
 */
export function namedChanges(body: JsonValue | undefined): NamedChange[] {
  if (body === undefined || body === null) return [];
  if (!Array.isArray(body) || body.length > MAX_BATCH) throw timesheetBodyInvalid(MAX_BATCH);
  return body.map((item) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw timesheetBodyInvalid(MAX_BATCH);
    const id = item.timesheet_setup_id;
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) throw timesheetInvalidId();
    if (typeof item.start_date !== "string") throw timesheetInvalidDate();
    const text = (v: JsonValue | undefined, bad: () => Error) => {
      if (v === undefined || v === null) return undefined;
      if (typeof v !== "string") throw bad();
      return v;
    };
    return { setupId: BigInt(id), startDate: item.start_date, status: text(item.status, timesheetInvalidStatus), rejectionComment: text(item.rejection_comment, timesheetCommentNotRejection) };
  });
}
