import { createRegistry, type JsonValue } from "@bufbuild/protobuf";
import { anyUnpack, timestampDate } from "@bufbuild/protobuf/wkt";
import type { Event } from "../../gen/events/v1/event_pb.js";
import { PROTO_FILES } from "../../gateway/catalog.js";
import { encodeMessage, trackingTimestamp } from "../../gateway/codec.js";

const registry = createRegistry(...PROTO_FILES);

/** ISO 8601 with a zone offset, as the hiring notifications carry it. */
function isoWithOffset(d: Date): string {
  return d.toISOString().replace("Z", "+00:00");
}

/**
 * The hiring notification: light, the receiver fetches the current state through the API.
 * `object_id` is ours: without it a receiver cannot know what to fetch.
 */
export function hiringPayload(notificationId: string, event: Event): JsonValue {
  return {
    id: notificationId,
    object_type: event.entity,
    event_type: event.action,
    event_time: isoWithOffset(event.occurredAt ? timestampDate(event.occurredAt) : new Date(0)),
    workspace_id: event.workspaceId,
    object_id: event.objectId,
  };
}

/** The time-tracking notification: the event's metadata and the entity as the REST API shows it. */
export function trackingPayload(notificationId: string, subscriptionId: string, url: string, event: Event, now: Date): JsonValue {
  const object = event.object ? anyUnpack(event.object, registry) : undefined;
  const desc = event.object ? registry.getMessage(event.object.typeUrl.slice(event.object.typeUrl.lastIndexOf("/") + 1)) : undefined;
  const created = event.occurredAt ? timestampDate(event.occurredAt) : now;
  return {
    event_id: event.id,
    notification_id: notificationId,
    created_at: created.toISOString(),
    creator_id: Number(event.userId),
    metadata: {
      action: event.action,
      event_user_id: String(event.userId),
      model: event.entity,
      workspace_id: event.workspaceId,
    },
    payload: object && desc ? encodeMessage(desc, object as unknown as Record<string, unknown>, trackingTimestamp) : null,
    subscription_id: subscriptionId,
    timestamp: now.toISOString(),
    url_callback: url,
  };
}
