import { createRegistry, type JsonValue } from "@bufbuild/protobuf";
import { anyUnpack, timestampDate } from "@bufbuild/protobuf/wkt";
import type { Event } from "../../../gen/events/v1/event_pb.js";
import { PROTO_FILES } from "../../../lib/contracts.js";
import { encodeMessage, trackingTimestamp } from "../../../lib/rest-json.js";
import type { Family, SubscriptionRow } from "../subscriptions/store.js";

const registry = createRegistry(...PROTO_FILES);

/** ISO 8601 with a zone offset, as the hiring notifications carry it. */
function isoWithOffset(d: Date): string {
  return d.toISOString().replace("Z", "+00:00");
}

/**
 * An id as the bodies show it: a JSON number, as the REST codec writes an int64 (lib/rest-json.ts),
 * so that a receiver finds the ids the API answered.
 */
function jsonId(id: bigint): number {
  return Number(id);
}

function eventTime(event: Event, fallback: Date): Date {
  return event.occurredAt ? timestampDate(event.occurredAt) : fallback;
}

/**
 * A notification's body has the parts of its event, stored once per event as a template, and
 * the parts of its subscription, filled in when it is sent: `fillTemplate` below.
 */

/**
 * The hiring notification: light, the receiver fetches the current state through the API.
 * `object_id` is ours: without it a receiver cannot know what to fetch. `id` is filled in.
 */
export function hiringTemplate(event: Event, now: Date): string {
  return JSON.stringify({
    id: null,
    object_type: event.entity,
    event_type: event.action,
    event_time: isoWithOffset(eventTime(event, now)),
    workspace_id: event.workspaceId,
    object_id: event.objectId,
  });
}

/** The entity of an event as the time-tracking REST API shows it, or null when it carries none. */
function entityJson(event: Event): JsonValue {
  if (!event.object) return null;
  const desc = registry.getMessage(event.object.typeUrl.slice(event.object.typeUrl.lastIndexOf("/") + 1));
  const object = anyUnpack(event.object, registry);
  return object && desc ? encodeMessage(desc, object as unknown as Record<string, unknown>, trackingTimestamp) : null;
}

function metadata(action: string, model: string, userId: bigint, workspaceId: string) {
  return { action, event_user_id: String(userId), model, workspace_id: workspaceId };
}

/**
 * The time-tracking notification: the event's metadata and the entity, as the real service
 * sends them. `notification_id`, `subscription_id` and `url_callback` are filled in.
 */
export function trackingTemplate(event: Event, now: Date): string {
  return JSON.stringify({
    event_id: event.id,
    notification_id: null,
    created_at: eventTime(event, now).toISOString(),
    creator_id: jsonId(event.userId),
    metadata: { ...metadata(event.action, event.entity, event.userId, event.workspaceId), object_id: event.objectId },
    payload: entityJson(event),
    subscription_id: null,
    timestamp: now.toISOString(),
    url_callback: null,
  });
}

/**
 * The body of one notification: its event's template with the notification's and
 * subscription's parts. Spliced into the text (no parse per delivery): the hiring template
 * starts with `{"id":null`; in the time-tracking one `notification_id` is the second key, and
 * `subscription_id` and `url_callback` come after the entity, the last of each in the text.
 */
export function fillTemplate(family: Family, template: string, notificationId: string, sub: Pick<SubscriptionRow, "id" | "url">): string {
  if (family === "hiring") return `{"id":${JSON.stringify(notificationId)}${template.slice(HIRING_ID.length)}`;
  const n = template.indexOf(NOTIFICATION_ID);
  const s = template.lastIndexOf(SUBSCRIPTION_ID);
  const u = template.lastIndexOf(URL_CALLBACK);
  return (
    template.slice(0, n) +
    `"notification_id":${JSON.stringify(notificationId)}` +
    template.slice(n + NOTIFICATION_ID.length, s) +
    `"subscription_id":${jsonId(sub.id)}` +
    template.slice(s + SUBSCRIPTION_ID.length, u) +
    `"url_callback":${JSON.stringify(sub.url)}` +
    template.slice(u + URL_CALLBACK.length)
  );
}

const HIRING_ID = '{"id":null';
const NOTIFICATION_ID = '"notification_id":null';
const SUBSCRIPTION_ID = '"subscription_id":null';
const URL_CALLBACK = '"url_callback":null';

/**
 * The time-tracking PING: a dummy event to test the setup. While the subscription is not
 * validated it carries the validation code (echo it as `{"validation_code": ...}`) and the link
 * that validates it.
 */
export function pingPayload(sub: SubscriptionRow, now: Date, validationUrl?: string): JsonValue {
  const payload: { [key: string]: JsonValue } = {
    event_id: 0,
    created_at: now.toISOString(),
    creator_id: jsonId(sub.user_id),
    metadata: metadata("ping", "subscription", sub.user_id, sub.workspace_id),
    payload: "ping",
    subscription_id: jsonId(sub.id),
    timestamp: now.toISOString(),
    url_callback: sub.url,
  };
  if (!sub.validated_at && sub.validation_code) {
    payload.validation_code = sub.validation_code;
    payload.validation_code_url = validationUrl ?? null;
  }
  return payload;
}
