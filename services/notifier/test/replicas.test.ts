import t from "tap";
import { systemClock } from "../../../lib/clock.js";
import { loadConfig } from "../../../lib/config.js";
import { cleanUp, testEnv, startReceiver } from "../../../test/support/harness.js";
import { eventually, openBus, publishEvent, seededRandom, startNotifier } from "./support.js";

/**
 * Two notifier replicas on one schema and one stream (in the stack mode each reads the stream
 * through its own NATS connection; in the embedded mode both share the SQLite file): they share
 * the subscriptions, and no subscription's order breaks, also when one of them stops.
 */

// Short claims and heartbeats so that a stopped replica's share moves within the test.
const fast = { dispatcher: { intervalMs: 50, heartbeatMs: 200, claimTtlMs: 3_000, lingerMs: 100 }, ingestLeaseMs: 1_500 };

t.test("replicas share the subscriptions; order holds and nothing is lost, also when one stops", async (t) => {
  const env = testEnv();
  const config = loadConfig(env);
  // Teardowns run last-registered first: the schema and stream go after both replicas stopped.
  t.teardown(() => cleanUp(config));
  const a = await startNotifier(t, { clock: systemClock, env, notifier: fast });
  // In the embedded mode the second replica has a bus of its own (one process per bus).
  const b = await startNotifier(t, { clock: systemClock, env, notifier: fast, bus: config.natsUrl ? undefined : await openBus(config) });

  const random = seededRandom(11);
  const receiver = await startReceiver(t, () => ({ status: 200, delayMs: Math.floor(random() * 6) }));
  const workspaces = ["w1", "w2", "w3", "w4", "w5"];
  const subs: { ws: string; path: string }[] = [];
  for (const ws of workspaces) {
    for (const k of [1, 2]) {
      const path = `/${ws}-${k}`;
      await a.admin.createSubscription({ service: "tracking", workspaceId: ws, url: receiver.url(path.slice(1)) });
      subs.push({ ws, path });
    }
  }
  const published = new Map<string, string[]>(workspaces.map((w) => [w, []]));
  const publish = async (bus: typeof a.bus, rounds: number) => {
    for (let i = 0; i < rounds; i++) for (const ws of workspaces) published.get(ws)!.push(await publishEvent(bus, { workspaceId: ws }));
  };
  const delivered = () => new Set(receiver.received.filter((r) => r.status === 200).map((r) => `${r.path} ${r.json.event_id}`)).size;

  await publish(a.bus, 20);
  await receiver.until(() => delivered() === 200, 30_000);
  const [byA, byB] = [(await a.notifier.counters.figures()).deliveries, (await b.notifier.counters.figures()).deliveries];
  t.ok(byA > 0 && byB > 0, `both delivered (${byA} and ${byB})`);

  // One replica stops while notifications are on their way; the other carries on.
  await publish(config.natsUrl ? a.bus : b.bus, 10);
  await a.notifier.close();
  await publish(b.bus, 10);
  await receiver.until(() => delivered() === 400, 30_000);

  for (const s of subs) {
    const firsts: string[] = [];
    for (const r of receiver.received) if (r.path === s.path && r.status === 200 && !firsts.includes(r.json.event_id)) firsts.push(r.json.event_id);
    t.same(firsts, published.get(s.ws), `${s.path}: every notification once, in creation order`);
  }
  t.same([...receiver.overlaps], [], "never two requests of one subscription at once");
  await eventually(async () => (await b.admin.getMetrics({})).queueDepths.length === 0, 10_000, "empty queues");
});
