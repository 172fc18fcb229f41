import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { DeliveryAttemptSchema, NotificationSchema, type DeliveryAttempt, type Notification } from "../../../gen/notifier/v1/webhooks_pb.js";
import type { AttemptRow, NotificationRow } from "./store.js";

/** Notifications and delivery log entries as the contracts' messages. */

export function attemptMessage(row: AttemptRow): DeliveryAttempt {
  return create(DeliveryAttemptSchema, {
    attemptId: row.id,
    notificationId: row.notification_id ?? "",
    attemptedAt: timestampFromDate(row.attempted_at),
    statusCode: row.status_code ?? 0,
    error: row.error ?? "",
    latencyMs: row.latency_ms,
    outcome: row.outcome,
    attempt: row.attempt,
  });
}

export function notificationMessage(row: NotificationRow): Notification {
  return create(NotificationSchema, {
    notificationId: row.id,
    subscriptionId: String(row.subscription_id),
    eventId: row.event_id,
    state: row.state,
    attempts: row.attempts,
    createdAt: timestampFromDate(row.created_at),
    nextAttemptAt: row.state === "pending" ? timestampFromDate(new Date(row.next_attempt_at_ms)) : undefined,
    finishedAt: row.finished_at ? timestampFromDate(row.finished_at) : undefined,
  });
}
