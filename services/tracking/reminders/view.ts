import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TrackReminderSchema, type TrackReminder } from "../../../gen/tracking/v1/reminders_pb.js";
import type { ReminderRow } from "./store.js";

/** A reminder as the reference's models.TrackReminder (the workspace's list and the caller's own). */
export function reminderMessage(row: ReminderRow): TrackReminder {
  return create(TrackReminderSchema, {
    reminderId: row.id,
    workspaceId: row.workspace_id,
    frequency: row.frequency,
    threshold: row.threshold,
    userIds: row.user_ids,
    groupIds: row.group_ids,
    createdAt: timestampFromDate(row.created_at),
  });
}
