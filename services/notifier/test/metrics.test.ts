import t from "tap";
import { Counter, register as globalRegistry } from "prom-client";
import { DeliveryMetrics } from "../delivery/metrics.js";
import { serviceRegistry } from "../../../lib/metrics.js";

/**
 * The notifier's delivery figures on their own: what each attempt counts, the Prometheus text
 * GET /metrics serves, the figures GetMetrics answers, and the queue depths read at scrape time.
 */

const noQueues = async () => new Map<bigint, number>();

/** The value of one exposition line, by its name and labels as written. */
function line(text: string, series: string): number | undefined {
  const escaped = series.replace(/[{}()[\].*+?^$|\\]/g, "\\$&");
  const found = new RegExp(`^${escaped} (\\S+)$`, "m").exec(text);
  return found ? Number(found[1]) : undefined;
}

t.test("each attempt counts into deliveries, failures or give-ups, under the metric names dashboards know", async (t) => {
  const m = new DeliveryMetrics(noQueues);
  m.observe("delivered", 10);
  m.observe("delivered", 10);
  m.observe("failed", 10);
  m.observe("given_up", 10);
  const text = await m.exposition();
  t.equal(line(text, 'webhook_deliveries_total{service="notifier"}'), 2);
  t.equal(line(text, 'webhook_failures_total{service="notifier"}'), 2, "a give-up is also a failure");
  t.equal(line(text, 'webhook_give_ups_total{service="notifier"}'), 1);
  for (const [name, type] of [
    ["webhook_deliveries_total", "counter"],
    ["webhook_failures_total", "counter"],
    ["webhook_give_ups_total", "counter"],
    ["webhook_delivery_latency_seconds", "histogram"],
    ["webhook_queue_depth", "gauge"],
  ]) {
    t.match(text, new RegExp(`^# TYPE ${name} ${type}$`, "m"), name);
  }
  t.match(await m.figures(), { deliveries: 2, failures: 2, giveUps: 1 });
});

t.test("attempt latency goes into the histogram's buckets in seconds", async (t) => {
  const m = new DeliveryMetrics(noQueues);
  for (const ms of [3, 40, 40, 700, 12_000]) m.observe("delivered", ms);
  const text = await m.exposition();
  const bucket = (le: string) => line(text, `webhook_delivery_latency_seconds_bucket{le="${le}",service="notifier"}`);
  t.same(
    ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"].map(bucket),
    [1, 1, 1, 3, 3, 3, 3, 4, 4, 4, 4, 5],
    "the buckets of before, cumulative",
  );
  t.equal(line(text, 'webhook_delivery_latency_seconds_sum{service="notifier"}'), 12.783);
  t.equal(line(text, 'webhook_delivery_latency_seconds_count{service="notifier"}'), 5);
});

t.test("GetMetrics' figures: latency count and sum in milliseconds, p50 and p99 of the recent attempts", async (t) => {
  const m = new DeliveryMetrics(noQueues);
  t.same(await m.figures(), { deliveries: 0, failures: 0, giveUps: 0, latencyCount: 0, latencySumMs: 0, latencyP50Ms: 0, latencyP99Ms: 0 }, "all zero before any attempt");
  for (let ms = 1; ms <= 100; ms++) m.observe("delivered", ms);
  const figures = await m.figures();
  t.match(figures, { latencyCount: 100, latencySumMs: 5050 });
  // The summary estimates (t-digest): within a millisecond of the exact quantile here.
  t.ok(figures.latencyP50Ms >= 50 && figures.latencyP50Ms <= 51, `p50 ${figures.latencyP50Ms}`);
  t.ok(figures.latencyP99Ms >= 99 && figures.latencyP99Ms <= 100, `p99 ${figures.latencyP99Ms}`);
});

t.test("queue depths are read from the database at every scrape; a subscription with none left drops out", async (t) => {
  let depths = new Map([
    [3n, 2],
    [7n, 1],
  ]);
  let reads = 0;
  const m = new DeliveryMetrics(async () => (reads++, depths));
  const first = await m.exposition();
  t.equal(line(first, 'webhook_queue_depth{subscription_id="3",service="notifier"}'), 2);
  t.equal(line(first, 'webhook_queue_depth{subscription_id="7",service="notifier"}'), 1);
  depths = new Map([[7n, 5]]);
  const second = await m.exposition();
  t.equal(line(second, 'webhook_queue_depth{subscription_id="3",service="notifier"}'), undefined);
  t.equal(line(second, 'webhook_queue_depth{subscription_id="7",service="notifier"}'), 5);
  t.equal(reads, 2, "one read per scrape");
});

t.test("a scrape fails when the queue depths cannot be read (GET /metrics answers 503)", async (t) => {
  const m = new DeliveryMetrics(async () => {
    throw new Error("database gone");
  });
  await t.rejects(m.exposition(), /database gone/);
});

t.test("each notifier counts on its own registry, none on prom-client's global one", async (t) => {
  const a = new DeliveryMetrics(noQueues);
  const b = new DeliveryMetrics(noQueues);
  a.observe("delivered", 5);
  t.equal((await a.figures()).deliveries, 1);
  t.equal((await b.figures()).deliveries, 0);
  t.equal(line(await b.exposition(), 'webhook_deliveries_total{service="notifier"}'), 0);
  t.equal(globalRegistry.getSingleMetric("webhook_deliveries_total"), undefined);
});

t.test("serviceRegistry labels every series with the service's name", async (t) => {
  const registry = serviceRegistry("tracking");
  new Counter({ name: "time_entries_started_total", help: "Timers started.", registers: [registry] }).inc();
  t.match(await registry.metrics(), /^time_entries_started_total\{service="tracking"\} 1$/m);
  t.equal(serviceRegistry("tracking").getSingleMetric("time_entries_started_total"), undefined, "a new registry each time");
  const samples = (await new DeliveryMetrics(noQueues).exposition()).split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  t.ok(samples.length > 0 && samples.every((l) => l.includes('service="notifier"')), "the notifier's series carry service=notifier");
});
