import type { Knex } from "./db.js";
import { isUniqueViolation } from "./db.js";
import { randomToken } from "./ids.js";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";

export interface LeaseOptions {
  /**
   * The table of the lease's row, `outbox_lease` by default: one whose rows also hold what the
   * lease guards (the notifier's ingest position) names its own. It has the columns `name`
   * (unique), `holder` and `expires_at_ms`, and defaults for any other.
   */
  table?: string;
}

/**
 * A lease on a named row of `outbox_lease` (or of the table the options name): one replica of a
 * service holds it at a time (the outbox relay, the mail sender, the notifier's ingest). Held
 * until `ttlMs` after its last renewal; another replica takes it over once it has expired.
 */
export class Lease {
  private readonly holder = randomToken(12);
  private readonly table: string;

  constructor(
    private readonly db: Knex,
    private readonly name: string,
    private readonly nowMs: () => number,
    private readonly ttlMs: number,
    options: LeaseOptions = {},
  ) {
    this.table = options.table ?? "outbox_lease";
  }

  /** Takes or renews the lease; false while another replica holds it. */
  async hold(): Promise<boolean> {
    const now = this.nowMs();
    const expires = now + this.ttlMs;
    const updated = await this.db(this.table)
      .where({ name: this.name })
      .andWhere((q) => q.where({ holder: this.holder }).orWhere("expires_at_ms", "<", now))
      .update({ holder: this.holder, expires_at_ms: expires });
    if (updated > 0) return true;
    try {
      await this.db(this.table).insert({ name: this.name, holder: this.holder, expires_at_ms: expires });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /**
   * Lets the lease go: it expires now, so any replica may take it at once. The row stays, with
   * whatever else it holds.
   */
  async release(): Promise<void> {
    await this.db(this.table).where({ name: this.name, holder: this.holder }).update({ expires_at_ms: 0 }).catch(() => undefined);
  }
}

/**
 * Runs a pass of background work `kickDelayMs` after it is kicked (a change committed something
 * to send), every `intervalMs` otherwise; passes never overlap, and a kick during a pass runs
 * another `kickDelayMs` after it. Kicks within the delay share one pass: what they committed goes
 * out together.
 */
export class KickedLoop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  /** A pass is due within the kick delay: later kicks wait for it. */
  private kicked = false;
  private stopped = true;
  private passes: Promise<void> = Promise.resolve();

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly kickDelayMs = 0,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Work soon: something committed. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (!this.kicked) {
      this.kicked = true;
      this.schedule(this.kickDelayMs);
    }
  }

  /** Runs a pass now, after any running one (tests, shutdown). */
  tick(): Promise<void> {
    const pass = this.passes.then(() => this.pass());
    this.passes = pass;
    return pass;
  }

  /** Stops scheduling and waits for the pass that runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.passes;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.kicked = false;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        const again = this.again;
        this.again = false;
        this.kicked = again;
        this.schedule(again ? this.kickDelayMs : this.intervalMs);
      });
    }, ms);
  }
}

export interface LeasedWorkOptions {
  /** Milliseconds between passes when nothing kicks one. */
  pollMs: number;
  /** How long the lease holds after each renewal: another replica takes the work over once it lapses. */
  leaseMs: number;
  /** Milliseconds a pass waits after a kick, so that the kicks of that time share it (0, the default). */
  kickDelayMs?: number;
  /**
   * `stillHeld()` renews the lease at most this often, answering true in between without a write
   * (a long pass asks between items; a lease of minutes needs no write per item). 0, the default:
   * every call renews.
   */
  renewEveryMs?: number;
}

/**
 * Background work that one replica of a service does at a time (a scheduler, a job worker): a
 * pass runs every `pollMs`, or at once when kicked, and only while this replica holds the lease
 * named `name` (renewed before a pass as `stillHeld()` renews it); a long pass asks `stillHeld()`
 * between its items and ends when it answers false or `stopRequested` is set. A pass runs only
 * when `pending()` says there is something to do (asked before the lease, so idle polls write
 * nothing). A pass that fails is logged and runs again at the next one, so what it did not finish
 * is picked up then.
 */
export abstract class LeasedWork {
  private readonly loop: KickedLoop;
  private readonly lease: Lease;
  private readonly nowMs: () => number;
  private readonly renewEveryMs: number;
  /** When this replica last took or renewed the lease (ms of the clock). */
  private renewedAt = 0;
  /** Set while `stop()` waits for the pass that runs: a long pass ends at its next item. */
  protected stopRequested = false;

  constructor(
    db: Knex,
    private readonly name: string,
    clock: Clock,
    private readonly log: Logger,
    options: LeasedWorkOptions,
  ) {
    this.nowMs = () => clock.now().getTime();
    this.lease = new Lease(db, name, this.nowMs, options.leaseMs);
    this.loop = new KickedLoop(() => this.run(), options.pollMs, options.kickDelayMs);
    this.renewEveryMs = options.renewEveryMs ?? 0;
  }

  /** One pass of the work, while the lease is held. */
  protected abstract pass(): Promise<void>;

  /** Whether there is anything to do, asked before taking the lease; always, unless a subclass knows better. */
  protected async pending(): Promise<boolean> {
    return true;
  }

  start(): void {
    this.loop.start();
  }

  /** A pass soon: something to do was committed. */
  kick(): void {
    this.loop.kick();
  }

  /** Runs a pass now, after any running one (tests, shutdown). */
  tick(): Promise<void> {
    return this.loop.tick();
  }

  async stop(): Promise<void> {
    this.stopRequested = true;
    try {
      await this.loop.stop();
      await this.lease.release();
    } finally {
      // Released: the next pass must take the lease again, whenever it runs.
      this.renewedAt = 0;
      // Stopped: no pass is scheduled any more, and one run by hand (tick) works again.
      this.stopRequested = false;
    }
  }

  /**
   * Renews the lease (at most every `renewEveryMs`): false once another replica has taken it over
   * (the pass should end).
   */
  protected async stillHeld(): Promise<boolean> {
    if (this.renewEveryMs > 0 && this.nowMs() - this.renewedAt < this.renewEveryMs) return true;
    return this.hold();
  }

  private async hold(): Promise<boolean> {
    const now = this.nowMs();
    const held = await this.lease.hold();
    if (held) this.renewedAt = now;
    return held;
  }

  private async run(): Promise<void> {
    try {
      if ((await this.pending()) && (await this.stillHeld())) await this.pass();
    } catch (err) {
      this.log.warn({ err }, `${this.name}: pass failed, will retry`);
    }
  }
}
