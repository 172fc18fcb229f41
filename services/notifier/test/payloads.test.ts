import t from "tap";
import { create } from "@bufbuild/protobuf";
import { anyPack, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import { ClientSchema } from "../../../gen/tracking/v1/clients_pb.js";
import { fillTemplate, hiringTemplate, trackingTemplate } from "../delivery/payloads.js";

const at = new Date("2025-01-01T10:00:00.500Z");
const now = new Date("2025-01-01T10:00:01Z");

t.test("a time-tracking body: the event's template with the notification, subscription and URL filled in", async (t) => {
  // A name that tries to look like the keys that are filled in.
  const name = 'Acme "subscription_id":null, "notification_id":null';
  const event = create(EventSchema, {
    id: "01JG0000000000000000000000",
    service: "tracking",
    workspaceId: "3",
    entity: "client",
    action: "created",
    userId: 7n,
    occurredAt: timestampFromDate(at),
    objectId: "12",
    object: anyPack(ClientSchema, create(ClientSchema, { id: 12n, wid: 3n, name, creatorId: 7n })),
  });
  const body = fillTemplate("tracking", trackingTemplate(event, now), "ntf_1", { id: 5n, url: 'https://hooks.example.com/h?a="b"' });
  const json = JSON.parse(body);
  t.same(Object.keys(json), ["event_id", "notification_id", "created_at", "creator_id", "metadata", "payload", "subscription_id", "timestamp", "url_callback"]);
  t.match(json, {
    event_id: "01JG0000000000000000000000",
    notification_id: "ntf_1",
    created_at: "2025-01-01T10:00:00.500Z",
    creator_id: 7,
    metadata: { action: "created", model: "client", workspace_id: "3", event_user_id: "7", object_id: "12" },
    payload: { id: 12, wid: 3, name, creator_id: 7, server_deleted_at: null },
    subscription_id: 5,
    timestamp: "2025-01-01T10:00:01.000Z",
    url_callback: 'https://hooks.example.com/h?a="b"',
  });
});

t.test("a hiring body: the specification's fields and object_id, with the notification id", async (t) => {
  const event = create(EventSchema, { id: "e1", service: "hiring", workspaceId: "ws_1", entity: "candidate", action: "test.finished", occurredAt: timestampFromDate(at), objectId: "c_9" });
  const body = fillTemplate("hiring", hiringTemplate(event, now), "ntf_2", { id: 1n, url: "https://hooks.example.com/" });
  t.equal(body, '{"id":"ntf_2","object_type":"candidate","event_type":"test.finished","event_time":"2025-01-01T10:00:00.500+00:00","workspace_id":"ws_1","object_id":"c_9"}');
});
