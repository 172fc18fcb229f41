import t from "tap";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ManualClock } from "../../../lib/clock.js";
import { connectDatabase, isMysql } from "../../../lib/db.js";
import { SecretBox } from "../../../lib/secret-box.js";
import { DispatchStore } from "../delivery/dispatch-store.js";
import { nextRetryDelayMs } from "../notifications/rules.js";
import type { NewNotification } from "../notifications/store.js";
import { startReceiver, type TestContext } from "../../../test/support/harness.js";
import { eventually, publishEvent, seededRandom, startNotifier, type TestNotifier } from "./support.js";

/**
 * Delivery semantics on a notifier alone, driven by a manual clock: the retry schedule, giving
 * up, order under failures, slow receivers, replay, the delivery log and the counters.
 */

const HOUR = 3_600_000;

async function setup(t: TestContext, clock: ManualClock, timeoutMs?: number): Promise<TestNotifier> {
  // No timed polling: the test moves the clock and sweeps; ingest still wakes the dispatcher.
  return startNotifier(t, { clock, notifier: { delivery: { timeoutMs }, dispatcher: { intervalMs: 3_600_000, lingerMs: 20 } } });
}

async function subscribe(n: TestNotifier, workspaceId: string, url: string): Promise<string> {
  const { subscription } = await n.admin.createSubscription({ service: "tracking", workspaceId, url, eventFilters: [{ entity: "*", action: "*" }] });
  return subscription!.subscriptionId;
}

/** Waits until the dispatcher has nothing in hand (every launched attempt recorded). */
async function settled(n: TestNotifier): Promise<void> {
  await eventually(() => n.notifier.dispatcher.active === 0, 15_000, "the dispatcher to finish its work");
}

/** Moves the clock to the next attempt of the subscription's queue and lets the dispatcher act on it. */
async function advanceToNextAttempt(n: TestNotifier, clock: ManualClock, subscriptionId: string): Promise<boolean> {
  await settled(n);
  const { notifications } = await n.admin.listNotifications({ subscriptionId, state: "pending" });
  if (notifications.length === 0) return false;
  // Newest first: the last one is the head of the queue, the one the subscription waits for.
  const next = timestampDate(notifications[notifications.length - 1].nextAttemptAt!).getTime();
  if (next > clock.now().getTime()) clock.advance(next - clock.now().getTime());
  await n.notifier.dispatcher.sweep();
  return true;
}

t.test("a failing notification is retried 10 + x^4 seconds after its x-th failure, given up after the tenth, and the queue moves on", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock);
  let firstFails = true;
  const receiver = await startReceiver(t, (req) => (firstFails && req.json.metadata.object_id === "first" ? 500 : 200));
  const sub = await subscribe(n, "w1", receiver.url());
  await publishEvent(n.bus, { workspaceId: "w1", objectId: "first" });
  await publishEvent(n.bus, { workspaceId: "w1", objectId: "second" });
  await receiver.until(() => receiver.received.length === 1);
  const started = clock.now().getTime();

  for (let x = 1; x <= 9; x++) {
    await settled(n);
    clock.advance(nextRetryDelayMs(x) - 1_000);
    await n.notifier.dispatcher.sweep();
    t.equal(n.notifier.dispatcher.active, 0, `no attempt a second before the wait after failure ${x} is over`);
    clock.advance(1_000);
    await n.notifier.dispatcher.sweep();
    await receiver.until(() => receiver.received.length === x + 1);
  }
  t.equal(clock.now().getTime() - started, 15_423_000, "the tenth attempt came 4 h 17 min after the first");
  await receiver.until(() => receiver.received.length === 11);
  const first = receiver.received[0].headers["webhook-id"];
  t.ok(
    receiver.received.slice(0, 10).every((r) => r.headers["webhook-id"] === first),
    "the notification id is the same on every attempt",
  );
  t.equal(receiver.received[10].json.metadata.object_id, "second", "after giving up, the next notification goes");
  await settled(n);

  const { notifications } = await n.admin.listNotifications({ subscriptionId: sub });
  t.same(
    notifications.map((x) => [x.state, x.attempts]),
    [
      ["delivered", 1],
      ["given_up", 10],
    ],
  );
  const { attempts } = await n.admin.listDeliveryAttempts({ subscriptionId: sub });
  const log = attempts.reverse();
  t.same(
    log.map((a) => a.outcome),
    [...Array(9).fill("failed"), "given_up", "delivered"],
  );
  t.same(
    log.slice(0, 10).map((a) => [a.attempt, a.statusCode, a.error]),
    Array.from({ length: 10 }, (_, i) => [i + 1, 500, "status 500"]),
  );
  const gaps = log.slice(1, 10).map((a, i) => (timestampDate(a.attemptedAt!).getTime() - timestampDate(log[i].attemptedAt!).getTime()) / 1000);
  t.same(gaps, [11, 26, 91, 266, 635, 1306, 2411, 4106, 6571], "attempt times in the log follow the schedule");
  t.ok(
    log.every((a) => a.latencyMs >= 0),
    "every attempt has its latency",
  );

  const metrics = await n.admin.getMetrics({});
  t.match(metrics, { deliveries: 1n, failures: 10n, giveUps: 1n, latencyCount: 11n });
  const text = await n.notifier.metrics();
  t.match(text, /^webhook_give_ups_total\{service="notifier"\} 1$/m);
  t.match(text, /^webhook_failures_total\{service="notifier"\} 10$/m);

  // Replay: the given-up notification goes again, with its id and a fresh count of attempts.
  firstFails = false;
  const givenUp = notifications.find((x) => x.state === "given_up")!;
  const replayed = await n.admin.replayNotification({ notificationId: givenUp.notificationId });
  t.match(replayed.notification, { notificationId: givenUp.notificationId, state: "pending", attempts: 0 });
  await receiver.until(() => receiver.received.length === 12);
  t.equal(receiver.received[11].headers["webhook-id"], first, "the replayed notification keeps its id");
  t.equal(receiver.received[11].status, 200);
  const again = await n.admin.replayNotification({ notificationId: givenUp.notificationId }).catch((e: Error) => e);
  t.match(again, { message: /only a given-up notification can be replayed/ });
});

t.test("a replayed notification goes at the end of its subscription's queue", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock);
  const fail = new Set(["a"]);
  const receiver = await startReceiver(t, (req) => (fail.has(req.json.metadata.object_id) ? 503 : 200));
  const sub = await subscribe(n, "w1", receiver.url());
  await publishEvent(n.bus, { workspaceId: "w1", objectId: "a" });
  await receiver.until(() => receiver.received.length === 1);
  while (await advanceToNextAttempt(n, clock, sub));
  const [givenUp] = (await n.admin.listNotifications({ subscriptionId: sub, state: "given_up" })).notifications;
  t.ok(givenUp, "a was given up");
  // b fails once, so it still waits for its retry when a is replayed.
  fail.delete("a");
  fail.add("b");
  await publishEvent(n.bus, { workspaceId: "w1", objectId: "b" });
  await receiver.until(() => receiver.received.some((r) => r.json.metadata.object_id === "b"));
  await settled(n);
  fail.delete("b");
  await n.admin.replayNotification({ notificationId: givenUp.notificationId });
  await n.notifier.dispatcher.sweep();
  t.equal(n.notifier.dispatcher.active, 0, "a waits behind b, whose retry is not due");
  while (await advanceToNextAttempt(n, clock, sub));
  const successes = receiver.received.filter((r) => r.status === 200).map((r) => r.json.metadata.object_id);
  t.same(successes, ["b", "a"]);
});

t.test("a held dispatcher queues without sending; a worker reads its queue after what it attempted; released, it sends all in order", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock);
  const receiver = await startReceiver(t, () => 200);
  const first = BigInt(await subscribe(n, "w1", receiver.url()));
  const second = BigInt(await subscribe(n, "w1", receiver.url()));
  await n.notifier.dispatcher.stop();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await publishEvent(n.bus, { workspaceId: "w1", objectId: `o${i}` }));
  const store = n.notifier.stores.dispatch;
  await eventually(async () => (await store.pendingBatches(new Map([[first, 0n]]), 10)).get(first)!.length === 3, 15_000, "three queued");
  const all = (await store.pendingBatches(new Map([[first, 0n]]), 10)).get(first)!;
  t.same(all.map((r) => r.event_id), ids, "from the start: the whole queue, in order");
  const after = await store.pendingBatches(new Map([[first, all[0].seq], [second, 0n]]), 1);
  t.same(after.get(first)!.map((r) => r.event_id), [ids[1]], "after the first one's seq, at most `limit`: only the second");
  t.same(after.get(second)!.map((r) => r.event_id), [ids[0]], "another subscription in the same read starts at its own head");
  t.same((await store.pendingBatches(new Map([[first, all[2].seq]]), 10)).get(first), [], "after the last: nothing");
  t.equal(receiver.received.length, 0, "nothing was sent while held");
  await n.notifier.dispatcher.start();
  await receiver.until(() => receiver.received.length === 6);
  for (const sub of [first, second]) {
    t.same(receiver.received.filter((r) => r.json.subscription_id === Number(sub)).map((r) => r.json.event_id), ids, `subscription ${sub}: every event once, in order`);
  }
});

t.test("one read serves more subscriptions than one statement takes, each at most `limit` from its own place", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock);
  const receiver = await startReceiver(t, () => 200);
  await n.notifier.dispatcher.stop();
  // 101 subscriptions: past the 100 queues one statement reads.
  const subs: bigint[] = [];
  for (let i = 0; i < 101; i++) subs.push(BigInt(await subscribe(n, "w1", receiver.url())));
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(await publishEvent(n.bus, { workspaceId: "w1", objectId: `o${i}` }));
  const store = n.notifier.stores.dispatch;
  const last = subs[subs.length - 1];
  await eventually(async () => (await store.pendingBatches(new Map([[last, 0n]]), 10)).get(last)!.length === 4, 15_000, "four queued for the last");
  const heads = await store.pendingBatches(new Map(subs.map((id) => [id, 0n])), 3);
  t.same([...heads.keys()], subs, "a list for every subscription asked about");
  t.ok(
    subs.every((id) => heads.get(id)!.every((r) => r.subscription_id === id)),
    "each list holds its own subscription's notifications",
  );
  t.ok(
    subs.every((id) => heads.get(id)!.map((r) => r.event_id).join() === ids.slice(0, 3).join()),
    "each list the first three of four, in order",
  );
  const second = await store.pendingBatches(new Map([[subs[0], heads.get(subs[0])![1].seq], [last, 0n]]), 3);
  t.same(second.get(subs[0])!.map((r) => r.event_id), ids.slice(2), "after the second one's seq: the rest of that queue");
  t.same(second.get(last)!.map((r) => r.event_id), ids.slice(0, 3), "the other from its head, in the same read");
});

t.test("due work is each queue's head, found by one probe of the index per queue, not by reading the backlog", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock);
  const receiver = await startReceiver(t, () => 200);
  await n.notifier.dispatcher.stop();
  const [a, b, c] = [BigInt(await subscribe(n, "w1", receiver.url())), BigInt(await subscribe(n, "w1", receiver.url())), BigInt(await subscribe(n, "w1", receiver.url()))];
  for (let i = 0; i < 3; i++) await publishEvent(n.bus, { workspaceId: "w1", objectId: `o${i}` });
  await eventually(async () => (await n.notifier.stores.dispatch.pendingBatches(new Map([[c, 0n]]), 10)).get(c)!.length === 3, 15_000, "three queued for each");
  // A store of its own on the same database, to see its statements.
  const db = await connectDatabase(n.config, "notifier");
  t.teardown(() => db.destroy());
  const store = new DispatchStore(db, new SecretBox(n.config.encryptionKey));
  // A backlog behind a's head (a receiver that was down): what a look for due work must not read.
  const backlog = Array.from({ length: 1_000 }, (_, i): NewNotification => ({ id: `ntf_backlog_${i}`, subscription_id: a, event_id: `evt_backlog_${i}`, state: "pending", attempts: 0, next_attempt_at_ms: 0, created_at: clock.now() }));
  await n.notifier.stores.ingest.enqueue(backlog, []);
  const statements: { sql: string; bindings: unknown[] }[] = [];
  db.on("query", (q: { sql: string; bindings: unknown[] }) => statements.push(q));
  const due = async () => (await store.dueSubscriptions({ nowMs: clock.now().getTime(), holder: "rep_test", share: { index: 0, of: 1 }, limit: 10 })).sort((x, y) => (x < y ? -1 : 1));
  t.same(await due(), [a, b, c], "every subscription with a queue");
  const [read] = statements;
  // b's head waits for a retry (its later notifications do not count); c is disabled.
  const [head] = (await store.pendingBatches(new Map([[b, 0n]]), 1)).get(b)!;
  await db("notifications").where({ seq: String(head.seq) }).update({ next_attempt_at_ms: clock.now().getTime() + HOUR });
  await db("subscriptions").where({ id: String(c) }).update({ enabled: false });
  t.same(await due(), [a], "a queue whose head waits is not due, nor a disabled subscription's");
  if (isMysql(db)) {
    // The plan by the table's statistics as they stand, not as InnoDB last sampled them in the background.
    await db.raw("analyze table notifications");
    const [plan] = (await db.raw(`explain ${read.sql}`, read.bindings as never[])) as [{ table: string; type: string; Extra: string }[]];
    t.ok(plan.some((row) => row.Extra.includes("Using index for group-by")), "MariaDB reads the heads by a loose index scan", { plan });
  } else {
    const plan = (await db.raw(`explain query plan ${read.sql}`, read.bindings as never[])) as { id: number; parent: number; detail: string }[];
    const byId = new Map(plan.map((row) => [row.id, row]));
    const within = (row: { parent: number }, what: string): boolean => {
      const parent = byId.get(row.parent);
      return parent !== undefined && (parent.detail.includes(what) || within(parent, what));
    };
    // The pending entries searched by state alone are read only for a scalar subquery's first entry (the next queue).
    const wide = plan.filter((row) => row.detail.startsWith("SEARCH") && row.detail.endsWith("(state=?)"));
    t.ok(wide.length > 0 && wide.every((row) => within(row, "SCALAR SUBQUERY")), "SQLite takes one entry of the pending ones at a time");
    t.notOk(plan.some((row) => /^SCAN (n|p|h|notifications)\b/.test(row.detail)), "and scans no notifications");
  }
});

t.test("a receiver that is down for two hours loses nothing, and order holds", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock);
  const upAt = clock.now().getTime() + 2 * HOUR;
  const receiver = await startReceiver(t, () => (clock.now().getTime() < upAt ? 502 : 200));
  const sub = await subscribe(n, "w1", receiver.url());
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await publishEvent(n.bus, { workspaceId: "w1", objectId: `o${i}` }));
  await receiver.until(() => receiver.received.length >= 1);
  let rounds = 0;
  while (await advanceToNextAttempt(n, clock, sub)) rounds++;
  await settled(n);
  const successes = receiver.received.filter((r) => r.status === 200).map((r) => r.json.event_id);
  t.same(successes, ids, "every event, once, in order");
  t.equal(receiver.received.filter((r) => r.status === 502).length, 8, "the first notification failed 8 times (2 h), the others waited behind it");
  t.ok(receiver.received.filter((r) => r.status === 502).every((r) => r.json.event_id === ids[0]));
  t.equal(rounds, 8);
});

t.test("a receiver slower than the timeout counts as a failure and is tried again later", async (t) => {
  const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
  const n = await setup(t, clock, 250);
  const receiver = await startReceiver(t, (_req, count) => (count === 1 ? { status: 200, delayMs: 800 } : 200));
  const sub = await subscribe(n, "w1", receiver.url());
  await publishEvent(n.bus, { workspaceId: "w1" });
  await receiver.until(() => receiver.received.length === 1);
  await settled(n);
  const [slow] = (await n.admin.listDeliveryAttempts({ subscriptionId: sub })).attempts;
  t.match(slow, { outcome: "failed", statusCode: 0, error: "no answer within 250 ms" });
  t.ok(slow.latencyMs >= 240 && slow.latencyMs < 800, `latency ${slow.latencyMs} ms`);
  await advanceToNextAttempt(n, clock, sub);
  await receiver.until(() => receiver.received.length === 2);
  await settled(n);
  const { attempts } = await n.admin.listDeliveryAttempts({ subscriptionId: sub });
  t.match(attempts[0], { outcome: "delivered", statusCode: 200, attempt: 2 });
});

t.test("property: random failures across subscriptions never break a subscription's order and lose nothing", async (t) => {
  for (const seed of [7, 42, 2025]) {
    const clock = new ManualClock(new Date("2025-01-01T00:00:00Z"));
    const n = await setup(t, clock);
    const random = seededRandom(seed);
    const failures = new Map<string, number>();
    const receiver = await startReceiver(t, (req) => {
      const id = String(req.headers["webhook-id"]);
      const failed = failures.get(id) ?? 0;
      // Fails about a third of the attempts, at most five times per notification (no give-ups).
      const fail = failed < 5 && random() < 0.35;
      if (fail) failures.set(id, failed + 1);
      return fail ? { status: random() < 0.5 ? 500 : 302, delayMs: 1 } : { status: 200, delayMs: Math.floor(random() * 4) };
    });
    // Three workspaces; two subscriptions in the first, so one event feeds both.
    const subs = [
      { ws: "w1", id: await subscribe(n, "w1", receiver.url("s1")), path: "/s1" },
      { ws: "w1", id: await subscribe(n, "w1", receiver.url("s2")), path: "/s2" },
      { ws: "w2", id: await subscribe(n, "w2", receiver.url("s3")), path: "/s3" },
      { ws: "w3", id: await subscribe(n, "w3", receiver.url("s4")), path: "/s4" },
    ];
    const published = new Map<string, string[]>();
    for (let i = 0; i < 45; i++) {
      const ws = ["w1", "w2", "w3"][Math.floor(random() * 3)];
      const id = await publishEvent(n.bus, { workspaceId: ws, objectId: `e${i}` });
      published.set(ws, [...(published.get(ws) ?? []), id]);
    }
    let guard = 0;
    for (;;) {
      await settled(n);
      const depths = (await n.admin.getMetrics({})).queueDepths;
      if (depths.length === 0) break;
      for (const s of subs) await advanceToNextAttempt(n, clock, s.id);
      if (++guard > 200) throw new Error("the queues do not drain");
    }
    for (const s of subs) {
      const firstSuccesses: string[] = [];
      for (const r of receiver.received) {
        if (r.path === s.path && r.status === 200 && !firstSuccesses.includes(r.json.event_id)) firstSuccesses.push(r.json.event_id);
      }
      t.same(firstSuccesses, published.get(s.ws) ?? [], `seed ${seed}, ${s.path}: every notification, in creation order`);
    }
    t.same([...receiver.overlaps], [], `seed ${seed}: never two requests of one subscription at once`);
    t.ok(
      [...failures.values()].some((f) => f > 1),
      `seed ${seed}: some notifications failed more than once`,
    );
    await n.notifier.close();
  }
});
