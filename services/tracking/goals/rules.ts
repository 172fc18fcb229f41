import type { GoalChange, GoalInput } from "../../../gen/tracking/v1/goals_pb.js";
import { findableId } from "../../../lib/ids.js";
import { dateInvalid, goalFieldChoice, goalFieldRequired, goalNotifiedAtInvalid, goalTargetInvalid, projectEndBeforeStart } from "../errors.js";

export const COMPARISONS = ["more_than", "less_than"] as const;
export const RECURRENCES = ["daily", "weekly", "monthly"] as const;
export const DEFAULT_ICON = "🎯";
/** The list's pages (the reference: 20 by default, 100 at most). */
export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** How many past recurrences a streak looks back on at most. */
export const MAX_STREAK = 366;

const DAY_MS = 86_400_000;

/** What a new goal holds, checked (ids still to be checked against the workspace). */
export interface GoalSettings {
  name: string;
  icon: string;
  comparison: string;
  recurrence: string;
  targetSeconds: number;
  billable: boolean;
  projectIds: bigint[];
  taskIds: bigint[];
  tagIds: bigint[];
  startDate: string;
  endDate: string | null;
}

export function goalDate(raw: string, field: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const d = m ? new Date(`${raw}T00:00:00Z`) : undefined;
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== raw) throw dateInvalid(field);
  return raw;
}

function choice(raw: string | undefined, field: string, allowed: readonly string[]): string {
  if (raw === undefined || raw.trim() === "") throw goalFieldRequired(field);
  const value = raw.trim().toLowerCase();
  if (!allowed.includes(value)) throw goalFieldChoice(field, allowed);
  return value;
}

function goalName(raw: string | undefined): string {
  const name = raw?.trim() ?? "";
  if (name === "") throw goalFieldRequired("name");
  return name;
}

function target(raw: bigint | undefined): number {
  if (raw === undefined) throw goalFieldRequired("target_seconds");
  if (raw <= 0n) throw goalTargetInvalid();
  return Number(raw);
}

/** The ids named, once each; one no row can have stays, as -1, to fail the check against the workspace. */
const ids = (list: bigint[]) => [...new Set(list.map(findableId))];

/** A new goal's settings: name, comparison, recurrence and target are required; it starts today unless told. */
export function goalSettings(input: GoalInput, today: string): GoalSettings {
  const startDate = input.startDate ? goalDate(input.startDate, "start_date") : today;
  const endDate = input.endDate ? goalDate(input.endDate, "end_date") : null;
  if (endDate !== null && endDate < startDate) throw projectEndBeforeStart();
  return {
    name: goalName(input.name),
    icon: input.icon?.trim() || DEFAULT_ICON,
    comparison: choice(input.comparison, "comparison", COMPARISONS),
    recurrence: choice(input.recurrence, "recurrence", RECURRENCES),
    targetSeconds: target(input.targetSeconds),
    billable: input.billable ?? false,
    projectIds: ids(input.projectIds),
    taskIds: ids(input.taskIds),
    tagIds: ids(input.tagIds),
    startDate,
    endDate,
  };
}

/** The columns a PUT changes (the reference's UpdatePayload); an empty end_date removes the end. */
export function goalChanges(change: GoalChange, startDate: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (change.name !== undefined) out.name = goalName(change.name);
  if (change.icon !== undefined) out.icon = change.icon.trim() || DEFAULT_ICON;
  if (change.comparison !== undefined) out.comparison = choice(change.comparison, "comparison", COMPARISONS);
  if (change.targetSeconds !== undefined) out.target_seconds = target(change.targetSeconds);
  if (change.endDate !== undefined) {
    out.end_date = change.endDate === "" ? null : goalDate(change.endDate, "end_date");
    if (out.end_date !== null && (out.end_date as string) < startDate) throw projectEndBeforeStart();
  }
  if (change.active !== undefined) out.active = change.active;
  if (change.lastNotifiedAt !== undefined) {
    const at = new Date(change.lastNotifiedAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(change.lastNotifiedAt) || Number.isNaN(at.getTime())) throw goalNotifiedAtInvalid();
    out.last_notified_at = at;
  }
  return out;
}

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** The recurrence that holds `day`: the day itself, its week (from the user's first weekday, 0 Sunday) or its calendar month. */
export function recurrenceOf(recurrence: string, day: string, beginningOfWeek: number): { start: string; end: string } {
  if (recurrence === "daily") return { start: day, end: day };
  if (recurrence === "weekly") {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    const start = addDays(day, -((weekday - beginningOfWeek + 7) % 7));
    return { start, end: addDays(start, 6) };
  }
  const start = `${day.slice(0, 7)}-01`;
  const next = new Date(`${start}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { start, end: addDays(next.toISOString().slice(0, 10), -1) };
}

/** Whether the tracked time meets the goal (at least the target, or at most it). */
export const meets = (comparison: string, tracked: number, targetSeconds: number) => (comparison === "less_than" ? tracked <= targetSeconds : tracked >= targetSeconds);

export interface GoalProgress {
  status: string;
  streak: number;
  current: { start: string; end: string } | null;
  trackedSeconds: number;
  lastCompletedEnd: string | null;
}

/**
 * A goal's progress on `today`, from the seconds its user tracked per day (entries matching the goal,
 * by their start day). The current recurrence is the one holding today, within the goal's dates:
 * `not_started` before its start, `ended` after its end (no current recurrence then). In it, a
 * `more_than` goal is `achieved` once the target is reached, `in_progress` before; a `less_than` goal
 * is `failed` once the target is passed, `in_progress` before. The streak counts the completed
 * recurrences before the current one that met the goal, back to the first that did not.
 */
export function goalProgress(
  goal: { comparison: string; recurrence: string; target_seconds: number; start_date: string; end_date: string | null },
  secondsByDay: Map<string, number>,
  today: string,
  beginningOfWeek: number,
): GoalProgress {
  const sum = (p: { start: string; end: string }) => {
    let total = 0;
    for (const [day, seconds] of secondsByDay) if (day >= p.start && day <= p.end && day >= goal.start_date && (goal.end_date === null || day <= goal.end_date)) total += seconds;
    return total;
  };
  const ended = goal.end_date !== null && today > goal.end_date;
  const started = today >= goal.start_date;
  const current = started && !ended ? recurrenceOf(goal.recurrence, today, beginningOfWeek) : null;
  const trackedSeconds = current ? sum(current) : 0;
  let status = "not_started";
  if (ended) status = "ended";
  else if (current) {
    if (goal.comparison === "less_than") status = meets(goal.comparison, trackedSeconds, goal.target_seconds) ? "in_progress" : "failed";
    else status = meets(goal.comparison, trackedSeconds, goal.target_seconds) ? "achieved" : "in_progress";
  }
  // Completed recurrences: those that ended before today (and before the goal's end, when it ended).
  const lastDay = ended ? goal.end_date! : addDays(today, -1);
  let lastCompletedEnd: string | null = null;
  let streak = 0;
  if (lastDay >= goal.start_date) {
    let period = recurrenceOf(goal.recurrence, lastDay, beginningOfWeek);
    if (period.end > lastDay && !ended) period = recurrenceOf(goal.recurrence, addDays(period.start, -1), beginningOfWeek);
    if (period.end >= goal.start_date) lastCompletedEnd = ended ? goal.end_date : period.end;
    for (let i = 0; i < MAX_STREAK && period.end >= goal.start_date; i++) {
      if (!meets(goal.comparison, sum(period), goal.target_seconds)) break;
      streak++;
      period = recurrenceOf(goal.recurrence, addDays(period.start, -1), beginningOfWeek);
    }
  }
  return { status, streak, current, trackedSeconds, lastCompletedEnd };
}

/** How far back the progress needs entries: the streak's longest look back. */
export function progressFrom(recurrence: string, startDate: string, today: string): string {
  const back = recurrence === "daily" ? MAX_STREAK : recurrence === "weekly" ? MAX_STREAK * 7 : MAX_STREAK * 31;
  const earliest = addDays(today, -back);
  return startDate > earliest ? startDate : earliest;
}

/** A list page: `page` from 1, `per_page` 20 by default and at most 100. */
export function goalPage(page: bigint | undefined, perPage: bigint | undefined): { offset: number; limit: number } {
  const size = perPage === undefined || perPage <= 0n ? DEFAULT_PER_PAGE : Math.min(Number(perPage), MAX_PER_PAGE);
  const n = page === undefined || page <= 0n ? 1 : Number(page);
  return { offset: (n - 1) * size, limit: size };
}
