import type { ScheduledReportInput } from "../../../gen/tracking/v1/saved_reports_pb.js";
import { rowId } from "../../../lib/ids.js";
import { bookmarkNotFound, noUsableRecipients, recipientsUnusable, scheduleFrequencyInvalid } from "../errors.js";
import { MONTHLY } from "../reminders/rules.js";

/** The scheduled reports' rules, pure: frequency, the saved report named, the recipients. */

/** Days between mails: daily, weekly (from each recipient's first day of the week), monthly (calendar months). */
export const FREQUENCIES = [1, 7, MONTHLY] as const;

export interface ScheduleSettings {
  frequency: number;
  /** The saved report's row id. */
  savedReportId: bigint;
  /** Ids as given, once each (an id no row can have is kept: it is unusable). */
  userIds: bigint[];
  groupIds: bigint[];
}

/** The body's settings: a frequency of 1, 7 or 30 and a saved report id; recipients are checked against the workspace after. */
export function scheduleSettings(input: ScheduledReportInput | undefined): ScheduleSettings {
  if (input?.frequency === undefined || !(FREQUENCIES as readonly number[]).includes(input.frequency)) throw scheduleFrequencyInvalid();
  const savedReportId = input.bookmarkId === undefined ? undefined : rowId(input.bookmarkId);
  if (savedReportId === undefined) throw bookmarkNotFound();
  return { frequency: input.frequency, savedReportId, userIds: [...new Set(input.userIds)], groupIds: [...new Set(input.groupIds)] };
}

/**
 * The recipients a schedule keeps: users who are active members of the workspace and groups
 * assigned to it. None usable is 400, and so is any one unusable (the whole request is refused).
 */
export function usableRecipients(settings: ScheduleSettings, activeMembers: ReadonlySet<bigint>, workspaceGroups: ReadonlySet<bigint>): { userIds: bigint[]; groupIds: bigint[] } {
  const users = settings.userIds.filter((id) => activeMembers.has(id));
  const groups = settings.groupIds.filter((id) => workspaceGroups.has(id));
  if (users.length + groups.length === 0) throw noUsableRecipients();
  if (users.length < settings.userIds.length || groups.length < settings.groupIds.length) throw recipientsUnusable();
  return { userIds: users, groupIds: groups };
}
