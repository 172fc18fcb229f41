import type { TrackReminderSettings } from "../../../gen/tracking/v1/reminders_pb.js";
import { frequencyInvalid, frequencyMissing, invalidValue, notInWorkspace, recipientsMissing, thresholdInvalid, thresholdMissing } from "../errors.js";
import { rowId } from "../../../lib/ids.js";

/** A reminder's settings as a request gives them (POST and PUT take the same body); no body is none. */
export type ReminderInput = Partial<Pick<TrackReminderSettings, "frequency" | "threshold" | "userIds" | "groupIds">>;

export interface ReminderSettings {
  frequency: 1 | 7;
  threshold: number;
  userIds: bigint[];
  groupIds: bigint[];
}

const HOURS_PER_DAY = 24;

/** Ids once each, in the order given; an id no row can have is the field's 400. */
function distinctIds(ids: bigint[], field: string): bigint[] {
  const out: bigint[] = [];
  for (const id of ids) {
    const n = rowId(id);
    if (n === undefined) throw invalidValue(field);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

/**
 * The settings of a reminder: frequency 1 (daily) or 7 (weekly); threshold a whole number of
 * hours from 1 to the hours of the period; at least one user or group.
 */
export function reminderSettings(input: ReminderInput): ReminderSettings {
  if (input.frequency === undefined) throw frequencyMissing();
  if (input.frequency !== 1 && input.frequency !== 7) throw frequencyInvalid();
  if (input.threshold === undefined) throw thresholdMissing();
  const most = HOURS_PER_DAY * input.frequency;
  if (!Number.isInteger(input.threshold) || input.threshold < 1 || input.threshold > most) {
    throw thresholdInvalid(most);
  }
  const userIds = distinctIds(input.userIds ?? [], "user_ids");
  const groupIds = distinctIds(input.groupIds ?? [], "group_ids");
  if (userIds.length === 0 && groupIds.length === 0) throw recipientsMissing();
  return { frequency: input.frequency, threshold: input.threshold, userIds, groupIds };
}

/** The named users that are no members of the workspace: a reminder names members only. */
export function checkMembers(userIds: bigint[], memberIds: ReadonlySet<bigint>): void {
  const strangers = userIds.filter((id) => !memberIds.has(id));
  if (strangers.length) throw notInWorkspace("user_ids", strangers);
}

/** The named groups that are not assigned to the workspace. */
export function checkGroups(groupIds: bigint[], workspaceGroupIds: ReadonlySet<bigint>): void {
  const unknown = groupIds.filter((id) => !workspaceGroupIds.has(id));
  if (unknown.length) throw notInWorkspace("group_ids", unknown);
}

/** A reminder's period for one user: [start, end), and its first and last day in the user's zone. */
export interface Period {
  start: Date;
  end: Date;
  firstDay: string;
  lastDay: string;
}

/** A calendar day (month 1-12); arithmetic goes through Date.UTC, which carries over months and years. */
interface Day {
  year: number;
  month: number;
  day: number;
}

const addDays = (d: Day, n: number): Day => {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
};
const dayText = (d: Day) => `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

/** The zone's wall clock at an instant, read as if it were UTC (milliseconds). */
function wallClock(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).formatToParts(new Date(instant));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"));
}

/** The instant the day starts in the zone (its offset taken at that midnight, so DST days are right). */
function midnight(d: Day, timeZone: string): Date {
  const local = Date.UTC(d.year, d.month - 1, d.day);
  let instant = local - (wallClock(local, timeZone) - local);
  instant = local - (wallClock(instant, timeZone) - instant);
  return new Date(instant);
}

/** The zone when Intl knows it, else UTC (a profile's zone the runtime does not know). */
export function knownZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}

/** The frequency (in days) that stands for a calendar month (scheduled reports). */
export const MONTHLY = 30;

/**
 * The latest period that has ended at `now`, in the user's time zone: yesterday for a daily
 * frequency (1), last week for a weekly one (7), from the user's first day of the week
 * (`weekStart`, 0 Sunday to 6 Saturday; Monday by default) at 00:00 to the next, and last
 * calendar month for a monthly one (MONTHLY, scheduled reports).
 */
export function lastEndedPeriod(frequency: number, now: Date, timeZone = "UTC", weekStart = 1): Period {
  const zone = knownZone(timeZone);
  const wall = new Date(wallClock(now.getTime(), zone));
  const today: Day = { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
  // getUTCDay: 0 is Sunday; days since the week last began.
  const firstWeekday = Number.isInteger(weekStart) && weekStart >= 0 && weekStart <= 6 ? weekStart : 1;
  const end = frequency === 1 ? today : frequency === MONTHLY ? { ...today, day: 1 } : addDays(today, -((wall.getUTCDay() - firstWeekday + 7) % 7));
  const first = frequency === MONTHLY ? { ...addDays(end, -1), day: 1 } : addDays(end, -frequency);
  return { start: midnight(first, zone), end: midnight(end, zone), firstDay: dayText(first), lastDay: dayText(addDays(end, -1)) };
}

/** An entry as the tracked time counts it: a running entry has no stop. */
export interface TrackedSpan {
  start: Date;
  stop: Date | null;
}

/** Seconds tracked inside the period: every entry clipped to the period; a running entry counts up to `now`. */
export function trackedSeconds(spans: TrackedSpan[], period: Period, now: Date): number {
  let ms = 0;
  for (const s of spans) {
    const from = Math.max(s.start.getTime(), period.start.getTime());
    const to = Math.min((s.stop ?? now).getTime(), period.end.getTime());
    if (to > from) ms += to - from;
  }
  return Math.floor(ms / 1000);
}

/** "3 h 05 min": a duration as the reminder mail writes it. */
export function hoursAndMinutes(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}
