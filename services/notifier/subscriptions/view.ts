import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { SubscriptionSchema, type Subscription } from "../../../gen/notifier/v1/webhooks_pb.js";
import { WebhookSubscriptionSchema, type WebhookSubscription } from "../../../gen/notifier/v1/tracking_webhooks_pb.js";
import type { SubscriptionRow } from "./store.js";

/** A subscription as the contracts' messages show it: the internal RPCs' and the time-tracking API's. */

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
    userId: row.user_id,
    pending: BigInt(pending),
  });
}

export function webhookSubscriptionMessage(row: SubscriptionRow, hasPendingEvents: boolean, deletedAt?: Date): WebhookSubscription {
  return create(WebhookSubscriptionSchema, {
    subscriptionId: row.id,
    workspaceId: BigInt(row.workspace_id),
    userId: row.user_id,
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
