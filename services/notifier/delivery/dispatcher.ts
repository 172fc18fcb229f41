import type { Clock } from "../../../lib/clock.js";
import type { Logger } from "../../../lib/logger.js";
import { randomToken } from "../../../lib/ids.js";
import type { Deliverer } from "./deliver.js";
import { DELIVERY_TIMEOUT_MS } from "./deliver.js";
import type { DeliveryMetrics } from "./metrics.js";
import { signatureHeaders } from "./signing.js";
import { fillTemplate } from "./payloads.js";
import { attemptOutcome, FAILURES_BEFORE_GIVING_UP, nextRetryDelayMs } from "../notifications/rules.js";
import type { AttemptResult, Deliverable, DispatchStore } from "./dispatch-store.js";

export interface DispatcherOptions {
  /** Subscriptions this replica delivers at once. */
  concurrency?: number;
  /** How often the database is asked for due work besides the wake-ups from ingest. */
  intervalMs?: number;
  /** How long a claim on a subscription lasts unless renewed (renewed every third of it). */
  claimTtlMs?: number;
  /** How often this replica tells the others it is alive. */
  heartbeatMs?: number;
  /** How long a worker whose queue ran empty waits for more before it lets the subscription go. */
  lingerMs?: number;
  /** Notifications read at once per subscription. */
  batch?: number;
  /** The deliverer's timeout: a claim must outlast an attempt. */
  deliveryTimeoutMs?: number;
}

interface Worker {
  subscriptionId: bigint;
  /** Until when (clock ms) the claim is known to hold. */
  claimUntilMs: number;
  /** Another replica took the subscription (a claim that could not be renewed), or recording failed. */
  lost: boolean;
  /** New notifications were queued since the worker last read its queue. */
  signaled: boolean;
  wake?: () => void;
  /** The last notification attempted: a read may still show it pending while its record commits. */
  lastSeq: bigint;
  /** Records not yet committed; the claim is let go only after them. */
  recording: Set<Promise<void>>;
  done: Promise<void>;
}

/**
 * Dispatcher delivers each subscription's notifications in order, one in flight per
 * subscription, many subscriptions at once.
 *
 * Replicas: a replica delivers a subscription only while it holds the subscription's claim in
 * the database, so exactly one replica at a time works on it, in queue order. Replicas share
 * the subscriptions by id modulo the number of live replicas (each heartbeats); a claim of a
 * replica that died expires after `claimTtlMs`, then the subscription's owner takes it over.
 * Nothing is lost when a replica dies mid-attempt: the notification is still pending and is
 * sent again (at least once).
 */
export class Dispatcher {
  /** This replica's id in the claims and the replica table. */
  readonly replicaId = `rep_${randomToken(12)}`;
  private readonly workers = new Map<bigint, Worker>();
  private share = { index: 0, of: 1 };
  private stopped = true;
  private polling?: Promise<void>;
  private pollAgain = false;
  private pollTimer?: NodeJS.Timeout;
  private renewTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private readonly recorder: Recorder;
  private readonly reader: Reader;
  private readonly opts: Required<DispatcherOptions>;

  constructor(
    private readonly store: DispatchStore,
    private readonly deliver: Deliverer,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly metrics: DeliveryMetrics,
    options: DispatcherOptions = {},
  ) {
    this.opts = {
      concurrency: options.concurrency ?? 1000,
      intervalMs: options.intervalMs ?? 250,
      claimTtlMs: options.claimTtlMs ?? 15_000,
      heartbeatMs: options.heartbeatMs ?? 2_000,
      lingerMs: options.lingerMs ?? 1_000,
      batch: options.batch ?? 100,
      deliveryTimeoutMs: options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS,
    };
    this.recorder = new Recorder(store);
    this.reader = new Reader(store, this.opts.batch);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.heartbeat();
    this.renewTimer = setInterval(() => void this.renewClaims(), this.opts.claimTtlMs / 3);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.opts.heartbeatMs);
    this.kick();
  }

  /** Look for due work now (a retry came due, a subscription was enabled or validated). */
  kick(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => void this.poll(), 0);
  }

  /** New notifications were queued for these subscriptions; `lookForOthers` kicks a poll for those without a worker here. */
  notify(subscriptionIds: Iterable<bigint>, lookForOthers = true): void {
    let elsewhere = false;
    for (const id of subscriptionIds) {
      const w = this.workers.get(id);
      if (w) {
        w.signaled = true;
        w.wake?.();
      } else elsewhere = true;
    }
    if (elsewhere && lookForOthers) this.kick();
  }

  /** Subscriptions this replica is delivering now. */
  get active(): number {
    return this.workers.size;
  }

  /** Looks for due work now and resolves when that look is done (tests move a clock, then sweep). */
  async sweep(): Promise<void> {
    while (this.polling) await this.polling;
    await this.poll();
  }

  private poll(): Promise<void> {
    if (this.polling) return this.polling;
    if (this.stopped) return Promise.resolve();
    const run = this.lookForWork().finally(() => {
      this.polling = undefined;
      if (this.stopped) return;
      clearTimeout(this.pollTimer);
      this.pollTimer = setTimeout(() => void this.poll(), this.pollAgain ? 0 : this.opts.intervalMs);
      this.pollAgain = false;
    });
    this.polling = run;
    return run;
  }

  private async lookForWork(): Promise<void> {
    try {
      const room = this.opts.concurrency - this.workers.size;
      const nowMs = this.clock.now().getTime();
      const due = await this.store.dueSubscriptions({ nowMs, holder: this.replicaId, share: this.share, limit: Math.max(room, 0) + this.workers.size });
      // A worker of ours that lingers learns here of work queued by another replica's ingest.
      this.notify(due, false);
      const fresh = due.filter((id) => !this.workers.has(id)).slice(0, Math.max(room, 0));
      const claimed = await this.store.claim(fresh, this.replicaId, nowMs, this.opts.claimTtlMs);
      for (const id of claimed) if (!this.stopped && !this.workers.has(id)) this.launch(id, nowMs + this.opts.claimTtlMs);
    } catch (err) {
      this.log.warn({ err }, "notifier: looking for due notifications failed");
    }
  }

  private launch(subscriptionId: bigint, claimUntilMs: number): void {
    const w: Worker = { subscriptionId, claimUntilMs, lost: false, signaled: false, lastSeq: 0n, recording: new Set(), done: Promise.resolve() };
    this.workers.set(subscriptionId, w);
    w.done = this.work(w)
      .catch((err) => this.log.error({ err, subscription: subscriptionId }, "notifier: delivery worker failed"))
      .finally(async () => {
        // Let go only when its records are in, and before another worker here may claim it again.
        // A claim that cannot be let go (the database is away) expires by itself.
        await Promise.allSettled([...w.recording]);
        if (!w.lost) await this.store.releaseClaims([subscriptionId], this.replicaId).catch(() => undefined);
        this.workers.delete(subscriptionId);
        this.kick();
      });
  }

  /**
   * Delivers a subscription's queue in order until it is empty (after lingering for more), its
   * head waits for a retry, the subscription is disabled, or the claim is gone.
   */
  private async work(w: Worker): Promise<void> {
    // A short batch was the whole queue when read: read again only once told of more.
    let readNow = true;
    // A replica joined and the subscription became its share: hand it over between attempts.
    while (!this.stopped && !w.lost && this.owns(w.subscriptionId)) {
      if (!readNow && !w.signaled && !(await this.linger(w))) return;
      w.signaled = false;
      const batch = await this.reader.read(w.subscriptionId, w.lastSeq);
      for (const n of batch) {
        if (n.seq <= w.lastSeq) continue;
        if (this.stopped || w.lost || !n.enabled || n.next_attempt_at_ms > this.clock.now().getTime() || !this.owns(w.subscriptionId)) return;
        if (!(await this.claimHolds(w))) return;
        w.lastSeq = n.seq;
        if ((await this.attempt(n, w)) === "failed") return;
      }
      readNow = batch.length === this.opts.batch;
    }
  }

  /** Waits for news of the subscription's queue; false when none came within `lingerMs`. */
  private linger(w: Worker): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        w.wake = undefined;
        resolve(false);
      }, this.opts.lingerMs);
      w.wake = () => {
        w.wake = undefined;
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  /** Whether the subscription is this replica's share of the work (id modulo live replicas). */
  private owns(subscriptionId: bigint): boolean {
    return subscriptionId % BigInt(this.share.of) === BigInt(this.share.index);
  }

  /** True while the claim outlasts another attempt; renews it when it would not. */
  private async claimHolds(w: Worker): Promise<boolean> {
    const nowMs = this.clock.now().getTime();
    if (w.claimUntilMs - nowMs > this.opts.deliveryTimeoutMs + 2_000) return true;
    const held = await this.store.renewClaims([w.subscriptionId], this.replicaId, nowMs, this.opts.claimTtlMs);
    if (held.length === 0) w.lost = true;
    else w.claimUntilMs = nowMs + this.opts.claimTtlMs;
    return !w.lost;
  }

  /**
   * One attempt. Its record commits in the background: the next notification need not wait for
   * it (the outcome is known here), and a notification whose record is lost in a crash is sent
   * again, after those before it, so first deliveries keep their order.
   */
  private async attempt(n: Deliverable, w: Worker): Promise<AttemptResult["outcome"]> {
    const sentAt = this.clock.now();
    const body = fillTemplate(n.family, n.template, n.id, { id: n.subscription_id, url: n.url });
    const headers = signatureHeaders(n.secret, n.id, Math.floor(sentAt.getTime() / 1000), body);
    const result = await this.deliver(n.url, body, headers);
    const at = this.clock.now();
    const attempt = n.attempts + 1;
    const outcome = attemptOutcome(result.ok, attempt);
    this.metrics.observe(outcome, result.latencyMs);
    if (outcome === "given_up") this.log.warn({ notification: n.id, subscription: n.subscription_id, error: result.error }, `notifier: giving up after ${FAILURES_BEFORE_GIVING_UP} failed attempts`);
    const recorded = this.recorder
      .record({
        notification: n,
        attempt,
        at,
        status: result.status,
        error: result.error,
        latencyMs: result.latencyMs,
        outcome,
        nextAttemptAtMs: at.getTime() + nextRetryDelayMs(attempt),
      })
      .catch((err) => {
        // Without its record the queue is not where this worker thinks: stop; it is read again.
        this.log.warn({ err, notification: n.id }, "notifier: recording an attempt failed");
        w.lost = true;
      });
    w.recording.add(recorded);
    void recorded.finally(() => w.recording.delete(recorded));
    return outcome;
  }

  private async renewClaims(): Promise<void> {
    if (this.workers.size === 0) return;
    try {
      const nowMs = this.clock.now().getTime();
      const held = new Set(await this.store.renewClaims([...this.workers.keys()], this.replicaId, nowMs, this.opts.claimTtlMs));
      for (const w of this.workers.values()) {
        if (held.has(w.subscriptionId)) w.claimUntilMs = nowMs + this.opts.claimTtlMs;
        else {
          w.lost = true;
          w.wake?.();
        }
      }
    } catch (err) {
      this.log.warn({ err }, "notifier: renewing claims failed");
    }
  }

  /** Tells the others this replica is alive and learns its share of the subscriptions. */
  private async heartbeat(): Promise<void> {
    try {
      const nowMs = this.clock.now().getTime();
      await this.store.heartbeat(this.replicaId, nowMs);
      const live = await this.store.liveReplicas(nowMs - 5 * this.opts.heartbeatMs);
      if (!live.includes(this.replicaId)) live.push(this.replicaId);
      live.sort();
      this.share = { index: live.indexOf(this.replicaId), of: live.length };
    } catch (err) {
      this.log.warn({ err }, "notifier: heartbeat failed");
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.renewTimer);
    clearInterval(this.heartbeatTimer);
    for (const w of this.workers.values()) w.wake?.();
    await Promise.allSettled([...this.workers.values()].map((w) => w.done));
    // A replica row left behind stops counting once its heartbeats are old.
    await this.store.removeReplica(this.replicaId).catch(() => undefined);
  }
}

/**
 * How long the recorder gathers attempts before it writes them, unless RECORD_BATCH arrived
 * sooner. A transaction's fixed cost (statements prepared, the commit) is shared by what it
 * carries, and so are the index pages it writes: measured on SQLite with 100 subscriptions'
 * attempts interleaved, 97-233 µs of CPU per attempt in groups of 15, 55-64 µs in groups of 100,
 * 28 µs in groups of 300, 16 µs in groups of 1,000. Nobody waits for a record before the next
 * attempt (a worker reads its queue after the last seq it attempted), so gathering costs no
 * delivery latency; an attempt whose record a crash lost is sent again (at least once).
 */
const GATHER_MS = 100;
const RECORD_BATCH = 1_000;

/**
 * Records attempts with a group commit: what arrives while one transaction runs, or within
 * GATHER_MS, goes into the next, so many subscriptions share a transaction and each attempt costs
 * a row, not a commit.
 */
class Recorder {
  private queue: { result: AttemptResult; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushing = false;
  private gathered?: () => void;

  constructor(private readonly store: DispatchStore) {}

  record(result: AttemptResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ result, resolve, reject });
      if (this.queue.length >= RECORD_BATCH) this.gathered?.();
      if (!this.flushing) {
        this.flushing = true;
        void this.flush();
      }
    });
  }

  /** Waits GATHER_MS, or less once RECORD_BATCH attempts are waiting. */
  private gather(): Promise<void> {
    if (this.queue.length >= RECORD_BATCH) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.gathered?.(), GATHER_MS);
      this.gathered = () => {
        this.gathered = undefined;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      await this.gather();
      const batch = this.queue;
      this.queue = [];
      try {
        await this.store.recordResults(batch.map((b) => b.result));
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.flushing = false;
  }
}

/**
 * Reads the queues of many workers in one query: what is asked while one read runs goes into
 * the next (an event for a hundred subscriptions wakes a hundred workers at once). Payload
 * templates are shared by the event's notifications and never change: they are kept here and
 * read once.
 */
class Reader {
  private waiting = new Map<bigint, { afterSeq: bigint; waiters: { resolve: (rows: Deliverable[]) => void; reject: (err: unknown) => void }[] }>();
  private reading = false;
  private readonly templates = new Map<string, string>();

  constructor(
    private readonly store: DispatchStore,
    private readonly limit: number,
  ) {}

  /** The subscription's next pending notifications after `afterSeq`. */
  read(subscriptionId: bigint, afterSeq: bigint): Promise<Deliverable[]> {
    return new Promise((resolve, reject) => {
      const waiting = this.waiting.get(subscriptionId) ?? { afterSeq, waiters: [] };
      if (afterSeq < waiting.afterSeq) waiting.afterSeq = afterSeq;
      waiting.waiters.push({ resolve, reject });
      this.waiting.set(subscriptionId, waiting);
      // Workers woken together ask within the same turn of the event loop: gather them first.
      if (!this.reading) {
        this.reading = true;
        setImmediate(() => void this.run());
      }
    });
  }

  private async run(): Promise<void> {
    while (this.waiting.size > 0) {
      const batch = this.waiting;
      this.waiting = new Map();
      try {
        const rows = await this.store.pendingBatches(new Map([...batch].map(([id, w]) => [id, w.afterSeq])), this.limit);
        const missing = new Set<string>();
        for (const list of rows.values()) for (const n of list) if (!this.templates.has(n.event_id)) missing.add(n.event_id);
        const read = await this.store.templates([...missing]);
        for (const [eventId, template] of read) this.remember(eventId, template);
        for (const [id, { waiters }] of batch) {
          const deliverable = (rows.get(id) ?? []).map((n) => ({ ...n, template: read.get(n.event_id) ?? this.templates.get(n.event_id)! }));
          for (const w of waiters) w.resolve(deliverable);
        }
      } catch (err) {
        for (const { waiters } of batch.values()) for (const w of waiters) w.reject(err);
      }
    }
    this.reading = false;
  }

  private remember(eventId: string, template: string): void {
    // The oldest go first (a Map keeps insertion order).
    if (this.templates.size >= TEMPLATE_CACHE) this.templates.delete(this.templates.keys().next().value!);
    this.templates.set(eventId, template);
  }
}

/** Payload templates kept in memory by a replica. */
const TEMPLATE_CACHE = 5_000;
