import t from "tap";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import type { EventBus, StreamMessage } from "../../../lib/bus.js";
import { ManualClock } from "../../../lib/clock.js";
import { createLogger, type Logger } from "../../../lib/logger.js";
import { Ingester, UNSTORED_POSITIONS } from "../delivery/ingest.js";
import type { IngestStore } from "../delivery/ingest-store.js";
import type { NewNotification } from "../notifications/store.js";
import type { TestContext } from "../../../test/support/harness.js";
import { eventually, startNotifier } from "./support.js";

/**
 * Ingest stores its stream position in the same transaction as the notifications,
 * compare-and-set: two replicas that read the same events (a lease that changed hands
 * mid-batch) queue them once, in stream order.
 */

t.test("two ingesters with the same batch: one queues it, the other queues nothing and learns the new position", async (t) => {
  const clock = new ManualClock();
  const n = await startNotifier(t, { clock });
  const store = n.notifier.stores.ingest;
  const { subscription } = await n.admin.createSubscription({ service: "tracking", workspaceId: "w1", url: "http://127.0.0.1:9/hook" });
  const sub = BigInt(subscription!.subscriptionId);
  // Makes the position's row (when the notifier's own ingest has not), as a replica that ingests does.
  await store.lease(() => clock.now().getTime(), 10_000).hold();
  const start = await store.position();
  const rows = (from: number, to: number, who: string): NewNotification[] =>
    Array.from({ length: to - from + 1 }, (_, i) => ({
      id: `ntf_${who}_${from + i}`,
      subscription_id: sub,
      event_id: `e${from + i}`,
      state: "pending",
      attempts: 0,
      // Far in the future: the dispatcher leaves them alone.
      next_attempt_at_ms: clock.now().getTime() + 3_600_000,
      created_at: clock.now(),
    }));

  const [a, b] = await Promise.all([
    store.enqueue(rows(start + 1, start + 4, "a"), [], { expected: start, next: start + 4 }),
    store.enqueue(rows(start + 1, start + 4, "b"), [], { expected: start, next: start + 4 }),
  ]);
  t.same([a, b].sort(), [false, true], "exactly one of them queued the batch");
  t.equal(await store.position(), start + 4);
  t.equal(await store.enqueue(rows(start + 3, start + 6, "late"), [], { expected: start + 2, next: start + 6 }), false, "a stale position queues nothing");

  // The loser reads the position again and goes on from there.
  t.equal(await store.enqueue(rows(start + 5, start + 6, "b"), [], { expected: await store.position(), next: start + 6 }), true);
  const queued = (await n.notifier.stores.notifications.list(sub, "pending", 100)).reverse();
  t.same(
    queued.map((q) => q.event_id),
    Array.from({ length: 6 }, (_, i) => `e${start + 1 + i}`),
    "each event once, in stream order",
  );
  t.ok(
    queued.every((q, i) => i === 0 || q.seq > queued[i - 1].seq),
    "delivery order follows",
  );
});

t.test("an event already queued for a subscription is not queued twice", async (t) => {
  const clock = new ManualClock();
  const n = await startNotifier(t, { clock });
  const store = n.notifier.stores.ingest;
  const { subscription } = await n.admin.createSubscription({ service: "tracking", workspaceId: "w1", url: "http://127.0.0.1:9/hook" });
  const sub = BigInt(subscription!.subscriptionId);
  const row = (id: string): NewNotification => ({ id, subscription_id: sub, event_id: "same-event", state: "pending", attempts: 0, next_attempt_at_ms: clock.now().getTime() + 3_600_000, created_at: clock.now() });
  await store.enqueue([row("ntf_first")], []);
  await store.enqueue([row("ntf_again")], []);
  t.same(
    (await n.notifier.stores.notifications.list(sub, undefined, 10)).map((q) => q.id),
    ["ntf_first"],
  );
});

/**
 * An ingester following a stream the test feeds by hand (as JetStreamBus.follow hands batches), with
 * a lease always its own: what it stores of its position, read off the database.
 */
async function handFedIngester(t: TestContext, leaseMs: number, log: Logger = createLogger("silent")) {
  const clock = new ManualClock();
  const n = await startNotifier(t, { clock });
  const store = n.notifier.stores.ingest;
  // Makes the position's row (when the notifier's own ingest has not), as a replica that ingests does.
  await store.lease(() => clock.now().getTime(), 10_000).hold();
  const start = await store.position();
  const { subscription } = await n.admin.createSubscription({ service: "tracking", workspaceId: "w1", url: "http://127.0.0.1:9/hook" });
  let handler: ((batch: StreamMessage[]) => Promise<void>) | undefined;
  const bus = {
    follow: async (from: () => Promise<number>, handle: (batch: StreamMessage[]) => Promise<void>) => {
      await from();
      handler = handle;
      return { stop: async () => undefined };
    },
  } as unknown as EventBus;
  const ownLease = { lease: () => ({ hold: async () => true, release: async () => undefined }), position: () => store.position(), enqueue: store.enqueue.bind(store) } as unknown as IngestStore;
  const ingester = new Ingester(ownLease, n.notifier.stores.subscriptions, bus, clock, log, () => undefined, { leaseMs });
  await ingester.start();
  t.teardown(() => ingester.stop());
  /** The event at stream position `seq`, of workspace `workspaceId`, as the stream holds it. */
  const eventData = (seq: number, workspaceId: string) =>
    toBinary(EventSchema, create(EventSchema, { id: `e${seq}`, service: "tracking", workspaceId, entity: "client", action: "created", occurredAt: timestampFromDate(clock.now()), objectId: "1" }));
  /** Hands the ingester a message at stream position `seq`. */
  const send = (seq: number, subject: string, data: Uint8Array) => handler!([{ subject, id: `e${seq}`, data, seq }]);
  /** Hands the ingester the event at stream position `seq`, of workspace `workspaceId`. */
  const feed = (seq: number, workspaceId: string) => send(seq, `tracking.${workspaceId}.client.created`, eventData(seq, workspaceId));
  return { n, store, start, ingester, feed, send, eventData, sub: BigInt(subscription!.subscriptionId) };
}

t.test("batches that queue nothing store the position only with one that queues, past UNSTORED_POSITIONS, and on stop", async (t) => {
  const { n, store, start, ingester, feed, sub } = await handFedIngester(t, 3_600_000);
  for (let i = 1; i <= 5; i++) await feed(start + i, "nobody");
  t.equal(await store.position(), start, "events no one subscribes to store nothing");
  await feed(start + 6, "w1");
  t.equal(await store.position(), start + 6, "a batch that queues stores the position with its notifications");
  await feed(start + 7, "nobody");
  t.equal(await store.position(), start + 6);
  await feed(start + 6 + UNSTORED_POSITIONS, "nobody");
  t.equal(await store.position(), start + 6 + UNSTORED_POSITIONS, "stored once UNSTORED_POSITIONS are read past it");
  await feed(start + 7 + UNSTORED_POSITIONS, "nobody");
  await ingester.stop();
  t.equal(await store.position(), start + 7 + UNSTORED_POSITIONS, "stored on stop");
  t.same((await n.notifier.stores.notifications.list(sub, undefined, 10)).map((q) => q.event_id), [`e${start + 6}`], "the one event subscribed to, queued once");
});

t.test("the position read past is stored at the lease's renewal", async (t) => {
  const { store, start, feed } = await handFedIngester(t, 300);
  await feed(start + 1, "nobody");
  await feed(start + 2, "nobody");
  await eventually(async () => (await store.position()) === start + 2, 5_000, "the position stored by a renewal (every 100 ms)");
  t.pass("stored");
});

t.test("an event is decoded only when its subject names a workspace with subscriptions, or does not name it for certain", async (t) => {
  const logged: string[] = [];
  const log = { error: (_: unknown, message: string) => logged.push(message), warn: () => undefined, info: () => undefined, debug: () => undefined } as unknown as Logger;
  const { n, start, send, eventData, sub } = await handFedIngester(t, 3_600_000, log);
  const garbage = new Uint8Array([255, 255, 255]);
  await send(start + 1, "tracking.nobody.client.created", garbage);
  t.same(logged, [], "a workspace without subscriptions: passed over by its subject, not read");
  await send(start + 2, "tracking.w1.client.created", garbage);
  t.equal(logged.length, 1, "a subscribed workspace's message is read (and this one, no event, skipped)");
  // A workspace id with a dot is `w_2` in subjects, which `w_2` would be too: the event tells.
  const { subscription } = await n.admin.createSubscription({ service: "tracking", workspaceId: "w.2", url: "http://127.0.0.1:9/hook" });
  await send(start + 3, "tracking.w_2.client.created", eventData(start + 3, "w.2"));
  await send(start + 4, "other.w1.client.created", eventData(start + 4, "w1"));
  await send(start + 5, "tracking.w1.client.created", eventData(start + 5, "w1"));
  t.same((await n.notifier.stores.notifications.list(BigInt(subscription!.subscriptionId), undefined, 10)).map((q) => q.event_id), [`e${start + 3}`], "queued by the workspace the event names");
  t.same((await n.notifier.stores.notifications.list(sub, undefined, 10)).map((q) => q.event_id), [`e${start + 5}`], "another service's subject queues nothing");
  t.equal(logged.length, 1);
});
