import type { Clock } from "../../lib/clock.js";
import type { Logger } from "../../lib/logger.js";
import type { Deliverer } from "./deliver.js";
import { signatureHeaders } from "./signing.js";
import { MAX_ATTEMPTS, nextRetryDelayMs } from "./schedule.js";
import type { NotificationRow, NotifierStore } from "./store.js";

/**
 * Dispatcher delivers each subscription's notifications in order, one in flight per
 * subscription, many subscriptions at once.
 */
export class Dispatcher {
  private readonly inFlight = new Set<string>();
  private timer?: NodeJS.Timeout;
  private polling = false;
  private stopped = true;
  private readonly deliveries = new Set<Promise<void>>();

  constructor(
    private readonly store: NotifierStore,
    private readonly deliver: Deliverer,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: { concurrency?: number; intervalMs?: number } = {},
  ) {}

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Look for work now. */
  kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), 0);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const room = (this.options.concurrency ?? 64) - this.inFlight.size;
      if (room > 0) {
        const heads = await this.store.dueHeads(this.clock.now().getTime(), [...this.inFlight], room);
        for (const n of heads) this.launch(n);
      }
    } catch (err) {
      this.log.warn({ err }, "notifier: polling failed");
    } finally {
      this.polling = false;
      if (!this.stopped) this.timer = setTimeout(() => void this.poll(), this.options.intervalMs ?? 250);
    }
  }

  private launch(n: NotificationRow): void {
    this.inFlight.add(n.subscription_id);
    const run = this.attempt(n)
      .catch((err) => this.log.error({ err, notification: n.id }, "notifier: attempt failed to record"))
      .finally(() => {
        this.inFlight.delete(n.subscription_id);
        this.deliveries.delete(run);
        this.kick();
      });
    this.deliveries.add(run);
  }

  private async attempt(n: NotificationRow): Promise<void> {
    const sub = await this.store.subscription(n.subscription_id);
    if (!sub) return;
    const now = this.clock.now();
    const headers = signatureHeaders(sub.secret, n.id, Math.floor(now.getTime() / 1000), n.body);
    const result = await this.deliver(sub.url, n.body, headers);
    const attempts = n.attempts + 1;
    const after = this.clock.now();
    if (result.ok) {
      await this.store.recordAttempt(n, result, { state: "delivered", attempts, nextAttemptAtMs: n.next_attempt_at_ms }, after);
      return;
    }
    const givenUp = attempts >= MAX_ATTEMPTS;
    if (givenUp) this.log.warn({ notification: n.id, subscription: sub.id }, "notifier: giving up after 10 failed attempts");
    await this.store.recordAttempt(
      n,
      result,
      { state: givenUp ? "given_up" : "pending", attempts, nextAttemptAtMs: after.getTime() + nextRetryDelayMs(attempts) },
      after,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.deliveries]);
  }
}
