import { Counter, Gauge, Histogram, Summary, type MetricValue } from "prom-client";
import { LATENCY_BUCKETS, serviceRegistry } from "../../../lib/metrics.js";

/** The span of recent attempts GetMetrics' p50 and p99 are taken over (in five slices). */
const QUANTILE_WINDOW_SECONDS = 600;

/** What GetMetrics answers about this replica's deliveries. */
export interface DeliveryFigures {
  deliveries: number;
  failures: number;
  giveUps: number;
  latencyCount: number;
  latencySumMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

type Outcome = "delivered" | "failed" | "given_up";

/** Seconds as milliseconds, without the binary fractions' noise below a microsecond. */
const milliseconds = (seconds: number) => Math.round(seconds * 1e6) / 1e3;

/** The value of one series of a metric (`name` tells a histogram's `_sum` and `_count` apart). */
function sample(metric: { name: string; values: (MetricValue<string> & { metricName?: string })[] }, name = metric.name, labels: Record<string, string | number> = {}): number {
  const found = metric.values.find((v) => (v.metricName ?? metric.name) === name && Object.entries(labels).every(([k, x]) => v.labels[k] === x));
  return found?.value ?? 0;
}

/**
 * Delivery figures of this replica (deliveries, failures, give-ups, attempt latency) and the
 * queue depth per subscription, which is read from the database at scrape time: every
 * replica's pending work shows there.
 */
export class DeliveryMetrics {
  readonly registry = serviceRegistry("notifier");
  private readonly deliveries = this.counter("webhook_deliveries_total", "Notifications delivered (2xx in time) by this replica.");
  private readonly failures = this.counter("webhook_failures_total", "Failed delivery attempts (including the ones given up) by this replica.");
  private readonly giveUps = this.counter("webhook_give_ups_total", "Notifications given up after 10 failed attempts by this replica.");
  private readonly latency = new Histogram({
    name: "webhook_delivery_latency_seconds",
    help: "Time from sending a notification to the receiver's answer.",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  // Not exposed: Prometheus aggregates the histogram over replicas; these quantiles of one
  // replica's recent attempts are what GetMetrics answers.
  private readonly recentLatency = new Summary({
    name: "webhook_delivery_latency_recent_seconds",
    help: "Time from sending a notification to the receiver's answer, recent attempts of this replica.",
    percentiles: [0.5, 0.99],
    maxAgeSeconds: QUANTILE_WINDOW_SECONDS,
    ageBuckets: 5,
    registers: [],
  });

  private readonly queueDepth: Gauge<"subscription_id">;

  constructor(queueDepths: () => Promise<Map<bigint, number>>) {
    this.queueDepth = new Gauge({
      name: "webhook_queue_depth",
      help: "Notifications waiting for delivery, per subscription (all replicas).",
      labelNames: ["subscription_id"],
      registers: [this.registry],
      async collect() {
        const depths = await queueDepths();
        this.reset();
        for (const [id, pending] of depths) this.set({ subscription_id: String(id) }, pending);
      },
    });
  }

  /** A counter of this replica's, in the notifier's registry. */
  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  /** One attempt: `outcome` delivered, failed (will be retried) or given_up (also a failure). */
  observe(outcome: Outcome, latencyMs: number): void {
    if (outcome === "delivered") this.deliveries.inc();
    else this.failures.inc();
    if (outcome === "given_up") this.giveUps.inc();
    this.latency.observe(latencyMs / 1000);
    this.recentLatency.observe(latencyMs / 1000);
  }

  /** The figures GetMetrics answers, read from the metrics themselves. */
  async figures(): Promise<DeliveryFigures> {
    const [deliveries, failures, giveUps, latency, recent] = await Promise.all([
      this.deliveries.get(),
      this.failures.get(),
      this.giveUps.get(),
      this.latency.get(),
      this.recentLatency.get(),
    ]);
    return {
      deliveries: sample(deliveries),
      failures: sample(failures),
      giveUps: sample(giveUps),
      latencyCount: sample(latency, `${latency.name}_count`),
      latencySumMs: milliseconds(sample(latency, `${latency.name}_sum`)),
      latencyP50Ms: milliseconds(sample(recent, recent.name, { quantile: 0.5 })),
      latencyP99Ms: milliseconds(sample(recent, recent.name, { quantile: 0.99 })),
    };
  }

  /** The Prometheus text exposition (GET /metrics), queue depths read now. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
