import type { Clock } from "../../../lib/clock.js";
import { Turns } from "../../../lib/turns.js";
import type { Logger } from "../../../lib/logger.js";
import type { RetentionStore } from "./retention-store.js";

export interface RetentionOptions {
  /** How long finished notifications, the delivery log and unused event payloads are kept. */
  keepMs: number;
  /** Time from the end of one sweep to the start of the next. */
  intervalMs?: number;
  /** Time from `start()` to the first sweep. */
  firstSweepMs?: number;
  /** Rows removed per statement: each batch is short, so it never holds locks long. */
  batch?: number;
}

/** What one sweep removed. */
export interface Swept {
  notifications: number;
  attempts: number;
  payloads: number;
}

/**
 * Retention removes what the notifier no longer needs once it is older than `keepMs` by the
 * clock: delivered and given-up notifications (by when they finished), the delivery log (by
 * attempt time) and the event payloads no notification uses any more. Pending notifications
 * and their payloads stay however old they are: a disabled subscription keeps its queue.
 *
 * Every replica sweeps; the deletes are idempotent, so sweeps of several replicas at once only
 * share the work.
 */
export class Retention {
  private timer?: NodeJS.Timeout;
  private stopping = false;
  /** Sweeps run one after another, never side by side. */
  private readonly sweeps = new Turns();
  private readonly opts: Required<RetentionOptions>;

  constructor(
    private readonly store: RetentionStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    options: RetentionOptions,
  ) {
    this.opts = {
      keepMs: options.keepMs,
      intervalMs: options.intervalMs ?? 3_600_000,
      firstSweepMs: options.firstSweepMs ?? 60_000,
      batch: options.batch ?? 1_000,
    };
  }

  start(): void {
    this.stopping = false;
    this.schedule(this.opts.firstSweepMs);
  }

  private schedule(ms: number): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.sweep()
        .catch((err) => this.log.warn({ err }, "notifier retention: sweep failed, will try again"))
        .finally(() => this.schedule(this.opts.intervalMs));
    }, ms);
    // Retention never keeps the process alive.
    this.timer.unref();
  }

  /** Removes everything older than the retention, in batches; after a sweep that is running now. */
  sweep(): Promise<Swept> {
    return this.sweeps.run(() => this.removeExpired());
  }

  private async removeExpired(): Promise<Swept> {
    const cutoff = new Date(this.clock.now().getTime() - this.opts.keepMs);
    // Notifications first: their payloads are unused only once they are gone.
    const swept: Swept = {
      notifications: await this.inBatches((limit) => this.store.purgeFinishedNotifications(cutoff, limit)),
      attempts: await this.inBatches((limit) => this.store.purgeAttempts(cutoff, limit)),
      payloads: await this.inBatches((limit) => this.store.purgeUnusedPayloads(cutoff, limit)),
    };
    if (swept.notifications + swept.attempts + swept.payloads > 0) this.log.info({ ...swept, before: cutoff.toISOString() }, "notifier retention: removed expired rows");
    return swept;
  }

  /**
   * Purges batch after batch until one comes back short (nothing left, or another replica is
   * removing the rest). Stopping ends it between batches: the rest goes at the next start.
   */
  private async inBatches(purge: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await purge(this.opts.batch);
      total += removed;
      if (removed < this.opts.batch || this.stopping) return total;
    }
  }

  /** Stops the timer and waits for a sweep that is running. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.sweeps.settled();
  }
}
