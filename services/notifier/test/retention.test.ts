import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { createLogger } from "../../../lib/logger.js";
import { Retention, type RetentionOptions } from "../delivery/retention.js";
import { FAILURES_BEFORE_GIVING_UP } from "../notifications/rules.js";
import { startReceiver, type TestContext } from "../../../test/support/harness.js";
import { eventually, publishEvent, startNotifier, type TestNotifier } from "./support.js";

/**
 * The retention job: what it removes once it is older than WEBHOOK_RETENTION_DAYS by the clock
 * (finished notifications, the delivery log, unused payloads), what it keeps (pending
 * notifications and the payloads they need), in batches, with replicas sweeping at once.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** WEBHOOK_RETENTION_DAYS unset. */
const KEEP = 30 * DAY;

/**
 * A notifier on a manual clock, without timed polling or (unless asked) sweeping: the test moves
 * the clock, then sweeps. Ingest still wakes the dispatcher.
 */
async function setup(t: TestContext, options: { retention?: Partial<RetentionOptions>; env?: Record<string, string> } = {}): Promise<{ n: TestNotifier; clock: ManualClock }> {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await startNotifier(t, {
    clock,
    extraEnv: options.env,
    notifier: { dispatcher: { intervalMs: HOUR, lingerMs: 20 }, retention: { firstSweepMs: HOUR, intervalMs: HOUR, ...options.retention } },
  });
  return { n, clock };
}

async function subscribe(n: TestNotifier, workspaceId: string, url: string): Promise<string> {
  const { subscription } = await n.admin.createSubscription({ service: "tracking", workspaceId, url, eventFilters: [{ entity: "*", action: "*" }] });
  return subscription!.subscriptionId;
}

/** Waits until the dispatcher has nothing in hand (every launched attempt recorded). */
async function settled(n: TestNotifier): Promise<void> {
  await eventually(() => n.notifier.dispatcher.active === 0, 15_000, "the dispatcher to finish its work");
}

/** Publishes an event and waits until the receiver has had `requests` requests and their records are in. */
async function publishAndWait(n: TestNotifier, receiver: { until(check: () => boolean): Promise<void>; received: unknown[] }, workspaceId: string, requests: number): Promise<string> {
  const id = await publishEvent(n.bus, { workspaceId });
  await receiver.until(() => receiver.received.length === requests);
  await settled(n);
  return id;
}

/** What the operators' RPCs show of a subscription: its notifications (event and state) and its delivery log (outcomes). */
async function shown(n: TestNotifier, subscriptionId: string): Promise<{ notifications: string[][]; attempts: string[] }> {
  const { notifications } = await n.admin.listNotifications({ subscriptionId });
  const { attempts } = await n.admin.listDeliveryAttempts({ subscriptionId });
  return { notifications: notifications.map((x) => [x.eventId, x.state]), attempts: attempts.map((a) => a.outcome) };
}

/** The events among `eventIds` whose payloads are stored. */
async function payloads(n: TestNotifier, eventIds: string[]): Promise<string[]> {
  return [...(await n.notifier.stores.dispatch.templates(eventIds)).keys()].sort();
}

/** Enables or disables a subscription as the PATCH route does (the test sweeps where the route kicks the dispatcher). */
async function setEnabled(n: TestNotifier, subscriptionId: string, enabled: boolean): Promise<void> {
  await n.notifier.stores.subscriptions.update(BigInt(subscriptionId), { enabled });
}

const nothing = { notifications: 0, attempts: 0, payloads: 0 };

t.test("delivered and given-up notifications older than the retention go with their delivery log and payloads", async (t) => {
  const { n, clock } = await setup(t);
  const receiver = await startReceiver(t, (req) => (req.path === "/down" ? 500 : 200));
  const ok = await subscribe(n, "w1", receiver.url("ok"));
  const down = await subscribe(n, "w2", receiver.url("down"));
  const delivered = await publishAndWait(n, receiver, "w1", 1);
  const givenUp = await publishAndWait(n, receiver, "w2", 2);
  // Each retry is due two hours later at the latest until the tenth failure.
  for (let attempt = 2; attempt <= FAILURES_BEFORE_GIVING_UP; attempt++) {
    clock.advance(2 * HOUR);
    await n.notifier.dispatcher.sweep();
    await receiver.until(() => receiver.received.length === attempt + 1);
    await settled(n);
  }
  const [gaveUp] = (await n.admin.listNotifications({ subscriptionId: down })).notifications;
  t.match(gaveUp, { eventId: givenUp, state: "given_up" });

  // The last attempt gave up 18 hours after the delivery: a minute short of the retention after it,
  // the delivered notification is old enough, and so are the given-up one's earlier attempts.
  clock.advance(KEEP - MINUTE);
  t.same(await n.notifier.retention.sweep(), { notifications: 1, attempts: 1 + (FAILURES_BEFORE_GIVING_UP - 1), payloads: 1 });
  t.same((await shown(n, down)).notifications, [[givenUp, "given_up"]]);
  clock.advance(2 * MINUTE);
  t.same(await n.notifier.retention.sweep(), { notifications: 1, attempts: 1, payloads: 1 });
  t.same(await shown(n, ok), { notifications: [], attempts: [] });
  t.same(await shown(n, down), { notifications: [], attempts: [] });
  t.same(await payloads(n, [delivered, givenUp]), []);
  const replay = await n.admin.replayNotification({ notificationId: gaveUp.notificationId }).catch((e: Error) => e);
  t.match(replay, { message: /not found/ }, "a removed notification can no longer be replayed");
  t.same(await n.notifier.retention.sweep(), nothing, "a second sweep finds nothing");
});

t.test("notifications finished within the retention stay with their delivery log and payloads", async (t) => {
  const { n, clock } = await setup(t);
  const receiver = await startReceiver(t);
  const sub = await subscribe(n, "w1", receiver.url());
  const old = await publishAndWait(n, receiver, "w1", 1);
  clock.advance(20 * DAY);
  const recent = await publishAndWait(n, receiver, "w1", 2);
  clock.advance(11 * DAY);

  t.same(await n.notifier.retention.sweep(), { notifications: 1, attempts: 1, payloads: 1 });
  t.same(await shown(n, sub), { notifications: [[recent, "delivered"]], attempts: ["delivered"] });
  t.same(await payloads(n, [old, recent]), [recent]);
});

t.test("a pending notification older than the retention stays with its payload and is delivered once its subscription is enabled again", async (t) => {
  const { n, clock } = await setup(t);
  const receiver = await startReceiver(t, (_req, count) => (count === 1 ? 500 : 200));
  const sub = await subscribe(n, "w1", receiver.url());
  const event = await publishAndWait(n, receiver, "w1", 1);
  await setEnabled(n, sub, false);
  clock.advance(KEEP + DAY);
  await n.notifier.dispatcher.sweep();
  t.equal(n.notifier.dispatcher.active, 0, "a disabled subscription's queue waits");

  t.same(await n.notifier.retention.sweep(), { notifications: 0, attempts: 1, payloads: 0 }, "only the failed attempt's log entry goes");
  t.same(await shown(n, sub), { notifications: [[event, "pending"]], attempts: [] });
  t.same(await payloads(n, [event]), [event]);

  await setEnabled(n, sub, true);
  await n.notifier.dispatcher.sweep();
  await receiver.until(() => receiver.received.length === 2);
  await settled(n);
  t.match(receiver.received[1], { status: 200, json: { event_id: event } });
  t.same((await shown(n, sub)).notifications, [[event, "delivered"]]);
});

t.test("an event's payload stays while a notification that stays needs it", async (t) => {
  const { n, clock } = await setup(t);
  const receiver = await startReceiver(t, (req) => (req.path === "/waits" ? 500 : 200));
  const done = await subscribe(n, "w1", receiver.url("done"));
  const waits = await subscribe(n, "w1", receiver.url("waits"));
  const event = await publishAndWait(n, receiver, "w1", 2);
  await setEnabled(n, waits, false);
  clock.advance(KEEP + DAY);

  t.same(await n.notifier.retention.sweep(), { notifications: 1, attempts: 2, payloads: 0 });
  t.same((await shown(n, done)).notifications, []);
  t.same((await shown(n, waits)).notifications, [[event, "pending"]]);
  t.same(await payloads(n, [event]), [event]);
});

t.test("batches smaller than the rows remove everything, also with two replicas sweeping at once", async (t) => {
  const { n, clock } = await setup(t, { retention: { batch: 2 } });
  const receiver = await startReceiver(t);
  const sub = await subscribe(n, "w1", receiver.url());
  const events: string[] = [];
  for (let i = 1; i <= 7; i++) events.push(await publishAndWait(n, receiver, "w1", i));
  clock.advance(KEEP + DAY);
  const other = new Retention(n.notifier.stores.retention, clock, createLogger("silent"), { keepMs: KEEP, batch: 2 });

  const [a, b] = await Promise.all([n.notifier.retention.sweep(), other.sweep()]);
  t.same({ notifications: a.notifications + b.notifications, attempts: a.attempts + b.attempts, payloads: a.payloads + b.payloads }, { notifications: 7, attempts: 7, payloads: 7 }, "every row removed once");
  t.same(await shown(n, sub), { notifications: [], attempts: [] });
  t.same(await payloads(n, events), []);
});

t.test("WEBHOOK_RETENTION_DAYS sets how long finished notifications are kept", async (t) => {
  const { n, clock } = await setup(t, { env: { WEBHOOK_RETENTION_DAYS: "2" } });
  const receiver = await startReceiver(t);
  await subscribe(n, "w1", receiver.url());
  await publishAndWait(n, receiver, "w1", 1);
  clock.advance(2 * DAY - MINUTE);
  t.same(await n.notifier.retention.sweep(), nothing);
  clock.advance(2 * MINUTE);
  t.same(await n.notifier.retention.sweep(), { notifications: 1, attempts: 1, payloads: 1 });
});

t.test("once started, the retention sweeps on its own every interval", async (t) => {
  const { n, clock } = await setup(t, { retention: { firstSweepMs: 0, intervalMs: 20 } });
  const receiver = await startReceiver(t);
  const sub = await subscribe(n, "w1", receiver.url());
  const event = await publishAndWait(n, receiver, "w1", 1);
  clock.advance(KEEP + DAY);
  await eventually(async () => (await payloads(n, [event])).length === 0, 15_000, "a timed sweep");
  t.same(await shown(n, sub), { notifications: [], attempts: [] });
});

t.test("stopping waits for a running sweep", async (t) => {
  const { n } = await setup(t);
  let finished = false;
  void n.notifier.retention.sweep().then(() => (finished = true));
  await n.notifier.retention.stop();
  t.ok(finished);
});
