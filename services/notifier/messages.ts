import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  DeliveryAttemptSchema,
  NotificationSchema,
  SubscriptionSchema,
  type DeliveryAttempt,
  type Notification,
  type Subscription,
} from "../../gen/notifier/v1/webhooks_pb.js";
import { WebhookSubscriptionSchema, type WebhookSubscription } from "../../gen/notifier/v1/tracking_webhooks_pb.js";
import type { AttemptRow, NotificationRow, SubscriptionRow } from "./store.js";

/** The notifier's rows as the contracts' messages. */

export function subscriptionMessage(row: SubscriptionRow, pending: number): Subscription {
  return create(SubscriptionSchema, {
    subscriptionId: String(row.id),
    service: row.family,
    workspaceId: row.workspace_id,
    url: row.url,
    description: row.description,
    eventFilters: row.event_filters,
    enabled: row.enabled,
    createdAt: timestampFromDate(row.created_at),
    validatedAt: row.validated_at ? timestampFromDate(row.validated_at) : undefined,
    userId: BigInt(row.user_id),
    pending: BigInt(pending),
  });
}

export function webhookSubscriptionMessage(row: SubscriptionRow, hasPendingEvents: boolean, deletedAt?: Date): WebhookSubscription {
  return create(WebhookSubscriptionSchema, {
    subscriptionId: BigInt(row.id),
    workspaceId: BigInt(row.workspace_id),
    userId: BigInt(row.user_id),
    enabled: row.enabled,
    description: row.description,
    eventFilters: row.event_filters,
    urlCallback: row.url,
    secret: row.secret,
    validatedAt: row.validated_at ? timestampFromDate(row.validated_at) : undefined,
    hasPendingEvents,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    deletedAt: deletedAt ? timestampFromDate(deletedAt) : undefined,
  });
}

export function attemptMessage(row: AttemptRow): DeliveryAttempt {
  return create(DeliveryAttemptSchema, {
    attemptId: BigInt(row.id),
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
