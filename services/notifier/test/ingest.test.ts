import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import type { NewNotification } from "../notifications/store.js";
import { startNotifier } from "./support.js";

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
