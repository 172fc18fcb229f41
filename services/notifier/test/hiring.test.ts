import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { startTestSystem, startReceiver } from "../../../test/support/harness.js";
import { runAdmin } from "../../../cmd/admin.js";
import type { Notifier } from "../index.js";
import { standardSignature } from "../delivery/signing.js";
import { eventually, publishEvent } from "./support.js";

/**
 * Hiring webhooks, made with the admin command line, and the operators' commands (log, replay,
 * metrics). Events are published on the bus as the hiring service's relay publishes them.
 */

const clock = new ManualClock(new Date("2025-03-01T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const notifier = sys.services.get("notifier") as Notifier;
const admin = (...argv: string[]) => runAdmin(argv, sys.directory) as Promise<any>;

t.test("hire:webhook add, list and remove manage a hiring workspace's webhooks", async (t) => {
  const r = await startReceiver(t);
  const added = await admin("hire:webhook", "add", "--workspace", "ws_acme", "--url", r.url(), "--events", "candidate/test.finished,candidate/updated", "--description", "ATS");
  t.match(added, {
    subscription: { subscription_id: /^\d+$/, service: "hiring", workspace_id: "ws_acme", url: r.url(), description: "ATS", enabled: true, validated_at: String },
    secret: /^whsec_/,
  });
  t.same(added.subscription.event_filters, [
    { entity: "candidate", action: "test.finished" },
    { entity: "candidate", action: "updated" },
  ]);
  const listed = await admin("hire:webhook", "list", "--workspace", "ws_acme");
  t.same(
    listed.subscriptions.map((s: { subscription_id: string }) => s.subscription_id),
    [added.subscription.subscription_id],
  );
  t.same((await admin("hire:webhook", "list", "--workspace", "ws_other")).subscriptions, []);
  t.same(await admin("hire:webhook", "remove", "--subscription", added.subscription.subscription_id), { removed: added.subscription.subscription_id });
  t.same((await admin("hire:webhook", "list", "--workspace", "ws_acme")).subscriptions, []);
  await t.rejects(admin("hire:webhook", "remove", "--subscription", added.subscription.subscription_id), /not found/);
  await t.rejects(admin("hire:webhook", "add", "--workspace", "ws_acme", "--url", r.url(), "--events", "candidate"), /expected entity\/action/);
});

t.test("a hiring notification is {id, object_type, event_type, event_time, workspace_id, object_id}, signed", async (t) => {
  const r = await startReceiver(t);
  const { subscription, secret } = await admin("hire:webhook", "add", "--workspace", "ws_payload", "--url", r.url());
  await publishEvent(sys.bus, { service: "hiring", workspaceId: "ws_payload", entity: "candidate", action: "test.finished", objectId: "c_42", at: new Date("2025-03-01T11:59:58.250Z") });
  await r.until(() => r.received.length === 1);
  const delivery = r.received[0];
  t.same(Object.keys(delivery.json), ["id", "object_type", "event_type", "event_time", "workspace_id", "object_id"]);
  t.same(delivery.json, {
    id: delivery.headers["webhook-id"],
    object_type: "candidate",
    event_type: "test.finished",
    event_time: "2025-03-01T11:59:58.250+00:00",
    workspace_id: "ws_payload",
    object_id: "c_42",
  });
  t.equal(delivery.headers["webhook-signature"], standardSignature(secret, delivery.json.id, Number(delivery.headers["webhook-timestamp"]), delivery.body));
  t.equal(delivery.headers["webhook-timestamp"], String(Math.floor(clock.now().getTime() / 1000)));
  t.ok(subscription);
});

t.test("the event filter picks the hiring events, and the families never mix", async (t) => {
  const updatesOnly = await startReceiver(t);
  const everything = await startReceiver(t);
  await admin("hire:webhook", "add", "--workspace", "123", "--url", updatesOnly.url(), "--events", "candidate/updated");
  await admin("hire:webhook", "add", "--workspace", "123", "--url", everything.url());
  const tracking = await startReceiver(t);
  await admin("webhook:add", "--service", "tracking", "--workspace", "123", "--url", tracking.url());

  await publishEvent(sys.bus, { service: "hiring", workspaceId: "123", entity: "candidate", action: "test.finished", objectId: "c1" });
  await publishEvent(sys.bus, { service: "hiring", workspaceId: "123", entity: "candidate", action: "updated", objectId: "c1" });
  await publishEvent(sys.bus, { service: "tracking", workspaceId: "123", entity: "client", action: "created", objectId: "9" });
  await everything.until(() => everything.received.length === 2);
  await updatesOnly.until(() => updatesOnly.received.length === 1);
  await tracking.until(() => tracking.received.length === 1);
  t.same(
    everything.received.map((r) => r.json.event_type),
    ["test.finished", "updated"],
  );
  t.equal(updatesOnly.received[0].json.event_type, "updated");
  t.equal(tracking.received[0].json.metadata.model, "client", "the time-tracking subscription of workspace 123 got only the time-tracking event");
});

t.test("webhook:log shows every attempt; webhook:replay sends a given-up notification again; webhook:metrics counts", async (t) => {
  let up = false;
  const r = await startReceiver(t, () => (up ? 200 : 500));
  const { subscription } = await admin("hire:webhook", "add", "--workspace", "ws_ops", "--url", r.url());
  const id = subscription.subscription_id;
  await publishEvent(sys.bus, { service: "hiring", workspaceId: "ws_ops", entity: "candidate", action: "updated", objectId: "c7" });
  for (let attempt = 1; attempt <= 10; attempt++) {
    await r.until(() => r.received.length === attempt);
    await eventually(() => notifier.dispatcher.active === 0, 10_000, "the attempt to be recorded");
    clock.advance(2 * 3_600_000);
    await notifier.dispatcher.sweep();
  }
  const log = await admin("webhook:log", id);
  t.equal(log.attempts.length, 10);
  t.match(log.attempts[0], { outcome: "given_up", status_code: 500, error: "status 500", attempt: 10, latency_ms: Number, attempted_at: String });
  t.ok(
    log.attempts.slice(1).every((a: { outcome: string }) => a.outcome === "failed"),
    "nine failures before",
  );
  const { notifications } = await admin("webhook:notifications", id, "--state", "given_up");
  t.equal(notifications.length, 1);
  const notificationId = notifications[0].notification_id;
  t.equal(notifications[0].attempts, 10);

  up = true;
  const replayed = await admin("webhook:replay", notificationId);
  t.match(replayed.notification, { notification_id: notificationId, state: "pending" });
  await r.until(() => r.received.length === 11);
  t.equal(r.received[10].json.id, notificationId, "the same notification id, so the receiver can deduplicate");
  await eventually(async () => (await admin("webhook:log", id, "--limit", "1")).attempts[0]?.outcome === "delivered", 10_000, "the delivery to be logged");
  const metrics = await admin("webhook:metrics");
  t.ok(Number(metrics.give_ups) >= 1 && Number(metrics.failures) >= 10 && Number(metrics.deliveries) >= 1, JSON.stringify(metrics));
  await t.rejects(admin("webhook:replay", notificationId), /only a given-up notification can be replayed/);
  await t.rejects(admin("webhook:log"), /<subscription id> is required/);
});
