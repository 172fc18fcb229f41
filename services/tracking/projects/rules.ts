import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { isRateChangeMode, RATE_CHANGE_MODES } from "../../../lib/rate-change-modes.js";
import { activeFilterInvalid, currencyInvalid, customPeriodMissing, dateInvalid, deletionModeInvalid, invalidValue, premiumNeeded, projectColorInvalid, projectCreationAdminsOnly, projectEndBeforeStart, projectNameEmpty, projectSortFieldInvalid, projectStatusInvalid, rateChangeModeInvalid, recurringPeriodInvalid, sortOrderInvalid } from "../errors.js";
import type { ProjectRow, RecurringParameters } from "./store.js";

/** The list's page size: by default and at most. */
export const DEFAULT_PER_PAGE = 151;
export const MAX_PER_PAGE = 200;
/** Most projects one PATCH changes. */
export const MAX_PATCH_PROJECTS = 100;

export type ProjectStatus = "upcoming" | "active" | "ended" | "archived" | "deleted";
export const PROJECT_STATUSES: readonly ProjectStatus[] = ["upcoming", "active", "ended", "archived", "deleted"];

export const RECURRING_PERIODS = ["weekly", "monthly", "quarterly", "yearly", "custom"] as const;

/** Colors given to a project created without one (the real service's palette). */
const PALETTE = ["#0b83d9", "#9e5bd9", "#d94182", "#e36a00", "#bf7000", "#2da608", "#06a893", "#c9806b", "#465bb3", "#990099", "#c7af14", "#566614", "#d92b2b", "#525266"];

/** The day (YYYY-MM-DD, UTC) of a time. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** A project's status: deleted, archived, then by its timeframe against today. */
export function projectStatus(row: Pick<ProjectRow, "server_deleted_at" | "active" | "start_date" | "end_date">, today: string): ProjectStatus {
  if (row.server_deleted_at) return "deleted";
  if (!row.active) return "archived";
  if (row.start_date > today) return "upcoming";
  if (row.end_date !== null && row.end_date < today) return "ended";
  return "active";
}

export function projectName(raw: string): string {
  const name = raw.trim();
  if (!name) throw projectNameEmpty();
  return name;
}

/** `#` and six hex digits, kept lower-case. */
export function projectColor(raw: string): string {
  if (!/^#[0-9a-fA-F]{6}$/.test(raw)) throw projectColorInvalid(raw);
  return raw.toLowerCase();
}

/** The palette color of a new project without one (by its name, so repeatable). */
export function defaultColor(name: string): string {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return PALETTE[h % PALETTE.length];
}

/** A calendar date YYYY-MM-DD that exists. */
export function projectDate(raw: string, field: string): string {
  const text = raw.trim();
  const d = new Date(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(d.getTime()) || dayOf(d) !== text) throw dateInvalid(field);
  return text;
}

export function checkTimeframe(start: string, end: string | null): void {
  if (end !== null && end < start) throw projectEndBeforeStart();
}

export function currencyCode(raw: string): string {
  const code = raw.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw currencyInvalid();
  return code;
}

export function rateChangeMode(raw: string): string {
  if (!isRateChangeMode(raw)) throw rateChangeModeInvalid(RATE_CHANGE_MODES);
  return raw;
}

export function recurringParameters(input: { period: string; customPeriod?: bigint; projectStartDate: string }, fallbackStart: string): RecurringParameters {
  const period = input.period.trim();
  if (!(RECURRING_PERIODS as readonly string[]).includes(period)) throw recurringPeriodInvalid(RECURRING_PERIODS);
  if (period === "custom" && input.customPeriod === undefined) throw customPeriodMissing();
  return {
    period,
    custom_period: period === "custom" && input.customPeriod !== undefined ? Number(input.customPeriod) : null,
    project_start_date: input.projectStartDate ? projectDate(input.projectStartDate, "recurring_parameters.project_start_date") : fallbackStart,
  };
}

/** The date `n` periods of the recurrence after `d`. */
function stepPeriod(params: RecurringParameters, d: Date, n: number): Date {
  const out = new Date(d);
  switch (params.period) {
    case "weekly":
      out.setUTCDate(out.getUTCDate() + 7 * n);
      break;
    case "monthly":
      out.setUTCMonth(out.getUTCMonth() + n);
      break;
    case "quarterly":
      out.setUTCMonth(out.getUTCMonth() + 3 * n);
      break;
    case "yearly":
      out.setUTCFullYear(out.getUTCFullYear() + n);
      break;
    default:
      out.setUTCDate(out.getUTCDate() + (params.custom_period ?? 1) * n);
  }
  return out;
}

/** The period of the recurrence that starts at `start`: its first and last day. */
function periodFrom(params: RecurringParameters, start: Date): { start: string; end: string } {
  const end = stepPeriod(params, start, 1);
  end.setUTCDate(end.getUTCDate() - 1);
  return { start: dayOf(start), end: dayOf(end) };
}

/** The current period of a recurring project: the one of its recurrence that holds today. */
export function currentPeriod(params: RecurringParameters, today: string): { start: string; end: string } {
  const origin = new Date(`${params.project_start_date}T00:00:00Z`);
  let start = origin;
  // Whole periods from the start to today (bounded: a start far in the past steps at most 10,000 times).
  for (let i = 1; i <= 10_000; i++) {
    const next = stepPeriod(params, origin, i);
    if (dayOf(next) > today) break;
    start = next;
  }
  return periodFrom(params, start);
}

/** Most periods one answer of `GET .../projects/{id}/periods` holds. */
export const MAX_PERIODS = 1000;

/**
 * The periods of a recurring project that meet the days `from`..`to` (both included, YYYY-MM-DD),
 * from the project's start on, oldest first, at most MAX_PERIODS (10,000 steps at most).
 */
export function recurringPeriods(params: RecurringParameters, from: string, to: string): { start: string; end: string }[] {
  const origin = new Date(`${params.project_start_date}T00:00:00Z`);
  const out: { start: string; end: string }[] = [];
  for (let i = 0; i < 10_000 && out.length < MAX_PERIODS; i++) {
    const period = periodFrom(params, stepPeriod(params, origin, i));
    if (period.start > to) break;
    if (period.end >= from) out.push(period);
  }
  return out;
}

/** The fields a free workspace keeps at their free value, and that value. */
const PREMIUM_FREE_VALUES = {
  auto_estimates: [false, null],
  billable: [false, null],
  currency: [null],
  estimated_hours: [null],
  fixed_fee: [null],
  rate: [null],
  rate_change_mode: [null],
  recurring: [false, null],
  recurring_parameters: [null],
  template: [false, null],
} as const satisfies Record<string, readonly unknown[]>;
export type PremiumField = keyof typeof PREMIUM_FREE_VALUES;

/** A premium field set to anything but its free value needs a premium workspace (402). */
export function checkPremium(scope: WorkspaceScope, field: PremiumField, value: unknown): void {
  if (scope.premium || (PREMIUM_FREE_VALUES[field] as readonly unknown[]).includes(value ?? null)) return;
  throw premiumNeeded(field);
}

export function checkMayCreate(scope: WorkspaceScope): void {
  if (scope.rules.onlyAdminsMayCreateProjects && !scope.admin) throw projectCreationAdminsOnly();
}

/** A list's `active`: true (the default), false or both (the tasks list reads it too). */
export function activeFilter(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase() || "true";
  if (value === "both") return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  throw activeFilterInvalid();
}

export function statusesOf(raw: readonly string[]): ProjectStatus[] {
  return raw.map((s) => {
    const status = s.trim().toLowerCase();
    if (!(PROJECT_STATUSES as readonly string[]).includes(status)) throw projectStatusInvalid(s, PROJECT_STATUSES);
    return status as ProjectStatus;
  });
}

/** Columns the list sorts on by `sort_field`. */
export const SORT_COLUMNS: Readonly<Record<string, string>> = {
  name: "sort_name",
  created_at: "created_at",
  at: "at",
  start_date: "start_date",
  end_date: "end_date",
};

export function sortOf(field: string, order: string): { column: string; desc: boolean } {
  const f = field.trim().toLowerCase() || "name";
  const column = Object.hasOwn(SORT_COLUMNS, f) ? SORT_COLUMNS[f] : undefined;
  if (!column) throw projectSortFieldInvalid(Object.keys(SORT_COLUMNS));
  return { column, desc: sortOrder(order) === "DESC" };
}

/** A list's `sort_order`: ASC (the default) or DESC, in any case (the tasks list reads it too). */
export function sortOrder(raw: string): "ASC" | "DESC" {
  const o = raw.trim().toUpperCase() || "ASC";
  if (o !== "ASC" && o !== "DESC") throw sortOrderInvalid();
  return o;
}

/** Page (from 1) and page size (default 151, at most 200; 0 means the default). */
export function pageOf(page: bigint | undefined, perPage: bigint | undefined): { offset: number; limit: number } {
  const size = perPage === undefined || perPage === 0n ? DEFAULT_PER_PAGE : Math.min(Number(perPage), MAX_PER_PAGE);
  const p = page === undefined || page === 0n ? 1 : Number(page);
  return { offset: (p - 1) * size, limit: size };
}

/** `teDeletionMode`: unassign (the default: entries stay, without project) or delete. */
export function deletionMode(raw: string): "delete" | "unassign" {
  const mode = raw.trim().toLowerCase() || "unassign";
  if (mode !== "delete" && mode !== "unassign") throw deletionModeInvalid();
  return mode;
}

/** `include_archived` / `include_not_active` of the caller's lists: true or false (default). */
export function flag(raw: string, name: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v === "" || v === "false") return false;
  if (v === "true") return true;
  throw invalidValue(name);
}
