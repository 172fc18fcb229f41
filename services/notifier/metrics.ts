/** How many recent attempt latencies the quantiles are taken over. */
const WINDOW = 2048;

/** Latency buckets of the Prometheus histogram, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Delivery counters of this replica: deliveries, failures, give-ups and attempt latency. Queue
 * depth is not counted here: it is read from the database, where every replica's work shows.
 */
export class DeliveryMetrics {
  deliveries = 0;
  failures = 0;
  giveUps = 0;
  latencyCount = 0;
  latencySumMs = 0;
  private readonly recent: number[] = [];
  private next = 0;
  private readonly buckets = BUCKETS.map(() => 0);

  /** One attempt: `outcome` delivered, failed (will be retried) or given_up (also a failure). */
  observe(outcome: "delivered" | "failed" | "given_up", latencyMs: number): void {
    if (outcome === "delivered") this.deliveries++;
    else this.failures++;
    if (outcome === "given_up") this.giveUps++;
    this.latencyCount++;
    this.latencySumMs += latencyMs;
    if (this.recent.length < WINDOW) this.recent.push(latencyMs);
    else this.recent[this.next] = latencyMs;
    this.next = (this.next + 1) % WINDOW;
    BUCKETS.forEach((b, i) => {
      if (latencyMs / 1000 <= b) this.buckets[i]++;
    });
  }

  /** The q-quantile (0..1) of the recent latencies, in milliseconds. */
  quantile(q: number): number {
    if (this.recent.length === 0) return 0;
    const sorted = [...this.recent].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }

  /** The Prometheus text exposition, with the queue depths read from the database. */
  prometheus(queueDepths: Map<number, number>): string {
    const lines = [
      "# HELP webhook_deliveries_total Notifications delivered (2xx in time) by this replica.",
      "# TYPE webhook_deliveries_total counter",
      `webhook_deliveries_total ${this.deliveries}`,
      "# HELP webhook_failures_total Failed delivery attempts (including the ones given up) by this replica.",
      "# TYPE webhook_failures_total counter",
      `webhook_failures_total ${this.failures}`,
      "# HELP webhook_give_ups_total Notifications given up after 10 failed attempts by this replica.",
      "# TYPE webhook_give_ups_total counter",
      `webhook_give_ups_total ${this.giveUps}`,
      "# HELP webhook_delivery_latency_seconds Time from sending a notification to the receiver's answer.",
      "# TYPE webhook_delivery_latency_seconds histogram",
      ...BUCKETS.map((b, i) => `webhook_delivery_latency_seconds_bucket{le="${b}"} ${this.buckets[i]}`),
      `webhook_delivery_latency_seconds_bucket{le="+Inf"} ${this.latencyCount}`,
      `webhook_delivery_latency_seconds_sum ${this.latencySumMs / 1000}`,
      `webhook_delivery_latency_seconds_count ${this.latencyCount}`,
      "# HELP webhook_queue_depth Notifications waiting for delivery, per subscription (all replicas).",
      "# TYPE webhook_queue_depth gauge",
      ...[...queueDepths].map(([id, n]) => `webhook_queue_depth{subscription_id="${id}"} ${n}`),
    ];
    return `${lines.join("\n")}\n`;
  }
}
