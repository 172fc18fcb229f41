import { create } from "@bufbuild/protobuf";
import { compareIds } from "../../../lib/ids.js";
import { DashboardActivitySchema, type DashboardActivity } from "../../../gen/tracking/v1/dashboard_pb.js";
import type { TimeEntryRow } from "../time-entries/store.js";

/** How many entries `top_activity` answers, how many users `most_active`, and its window. */
export const TOP_ACTIVITY_ENTRIES = 20;
export const MOST_ACTIVE_USERS = 5;
export const MOST_ACTIVE_WINDOW_MS = 7 * 24 * 3600 * 1000;

/** A stored time as the dashboard answers it: RFC 3339, UTC, whole seconds. */
export const rfc3339 = (d: Date): string => d.toISOString().slice(0, 19) + "Z";

/**
 * An entry as the dashboard shows it: `seen` says whether the caller sees its project (a private
 * project the caller is not in answers as no project, without its task).
 */
export function activityOf(row: TimeEntryRow, seen: boolean): DashboardActivity {
  const projectId = seen && row.project_id !== null ? row.project_id : 0n;
  return create(DashboardActivitySchema, {
    userId: row.user_id,
    projectId,
    duration: BigInt(row.duration),
    descriptionSet: row.description ? { case: "description", value: row.description } : { case: undefined },
    stopSet: row.stop ? { case: "stop", value: rfc3339(row.stop) } : { case: undefined },
    tidSet: projectId !== 0n && row.task_id !== null ? { case: "tid", value: row.task_id } : { case: undefined },
  });
}

/** The latest entry of each user (by start, then id) among rows, newest first. */
export function latestPerUser(rows: readonly TimeEntryRow[]): TimeEntryRow[] {
  const latest = new Map<bigint, TimeEntryRow>();
  for (const row of rows) {
    const known = latest.get(row.user_id);
    if (!known || row.start > known.start || (row.start.getTime() === known.start.getTime() && row.id > known.id)) latest.set(row.user_id, row);
  }
  return [...latest.values()].sort((a, b) => b.start.getTime() - a.start.getTime() || compareIds(b.id, a.id));
}
