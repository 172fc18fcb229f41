import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TrackReminderSchema, type TrackReminder } from "../../../gen/tracking/v1/reminders_pb.js";
import type { ReminderRow } from "./store.js";

/** A reminder as the reference's models.TrackReminder (the workspace's list and the caller's own). */
export function reminderMessage(row: ReminderRow): TrackReminder {
  return create(TrackReminderSchema, {
    reminderId: BigInt(row.id),
    workspaceId: BigInt(row.workspace_id),
    frequency: row.frequency,
    threshold: row.threshold,
    userIds: row.user_ids.map(BigInt),
    groupIds: row.group_ids.map(BigInt),
    createdAt: timestampFromDate(row.created_at),
  });
}
