import type { Config, ServiceName } from "./config.js";
import type { Clock } from "./clock.js";
import type { EventBus } from "./bus.js";
import type { Logger } from "./logger.js";
import type { ConnectError } from "@connectrpc/connect";
import { isConflictVictim, isUniqueViolation, openDatabase, type Knex, type Migration } from "./db.js";
import { OutboxRelay, outboxMigration, recordEvent, type DomainEvent } from "./events.js";
import { Mailer, mailOutboxMigration, type RecordMail } from "./mailer.js";
import { unavailable } from "./errors.js";
import { withinTransaction } from "./transactions.js";

/** Runs of a transaction that lost a conflict (isConflictVictim), in all; after the last the caller is told to try again (503). */
/** Runs of a change that collides with concurrent ones (deadlocks, SQLite snapshots) before it answers 503. */
const CONFLICT_RUNS = 8;

/**
 * How long a conflict's victim waits before it runs again: a random part of a window that
 * doubles with each attempt (5 ms, 10 ms, ... at most 200 ms), so that the writers that collided
 * do not collide again in step.
 */
function conflictBackoffMs(attempt: number): number {
  return Math.random() * Math.min(5 * 2 ** (attempt - 1), 200);
}

/**
 * Runs `transaction` (a whole transaction, from its start), again after a random pause while the
 * database refuses it for a conflict with a concurrent one (isConflictVictim), up to CONFLICT_RUNS
 * runs in all; then the caller is told to try again (`unavailable`).
 */
export async function runAgainOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      if (!isConflictVictim(err)) throw err;
      if (attempt >= CONFLICT_RUNS) throw unavailable("The change collided with concurrent changes; try again");
      await new Promise((resolve) => setTimeout(resolve, conflictBackoffMs(attempt)));
    }
  }
}

/** Records events inside a transaction; they are published after it commits. */
export type Emit = (event: DomainEvent) => Promise<string>;

/** What a service's storage does besides its tables and events. */
export interface StorageOptions {
  /**
   * The service sends mail (lib/mailer.ts): `change` hands its work a RecordMail, and a Mailer
   * sends what committed. Its migrations list `mailOutboxMigration` (so `npm run migrate` makes the table).
   */
  mail?: boolean;
}

/** What a change declares about itself. */
export interface ChangeOptions {
  /** The error a unique-key violation means for this call (a name taken, the same record twice). */
  onDuplicate?: () => ConnectError;
  /**
   * A unique-key violation is a collision with a concurrent writer (two creating the same record at
   * once): the change runs again, up to `attempts` runs in all, then answers `giveUp()`.
   */
  againOnDuplicate?: { attempts: number; giveUp: () => ConnectError };
}

/**
 * ServiceStorage is a service's own schema with its outbox: `change` runs a change and the
 * events (and mails) it records atomically, then lets the relay publish them (and the mailer send them).
 */
export class ServiceStorage {
  private constructor(
    readonly db: Knex,
    private readonly relay: OutboxRelay,
    private readonly service: ServiceName,
    private readonly clock: Clock,
    private readonly mailer?: Mailer,
  ) {}

  static async open(
    deps: { config: Config; clock: Clock; bus: EventBus; log: Logger },
    service: ServiceName,
    migrations: Migration[],
    options: StorageOptions = {},
  ): Promise<ServiceStorage> {
    if (options.mail && !migrations.includes(mailOutboxMigration)) throw new Error(`${service}: a service that sends mail lists mailOutboxMigration in its migrations`);
    const db = await openDatabase(deps.config, service, [outboxMigration, ...migrations]);
    const mailer = options.mail ? Mailer.fromConfig(db, deps) : undefined;
    return new ServiceStorage(db, new OutboxRelay(db, deps.bus, deps.clock, deps.log), service, deps.clock, mailer);
  }

  /**
   * Runs `work` and the events and mails it records in one transaction. Concurrent writers can deadlock
   * in MySQL (locking reads take gap locks where new rows go), and in SQLite a transaction that read
   * cannot write once another process wrote: the victim, rolled back with its outbox rows, runs
   * again (runAgainOnConflict). A unique-key violation becomes the error the call declares. Mails
   * go out after the commit (never for a change that failed).
   */
  async change<T>(work: (trx: Knex.Transaction, emit: Emit, mail: RecordMail) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
    const again = options.againOnDuplicate;
    for (let attempt = 1; again; attempt++) {
      try {
        return await this.changeOnce(work, options);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (attempt >= again.attempts) throw again.giveUp();
      }
    }
    return this.changeOnce(work, options);
  }

  private async changeOnce<T>(work: (trx: Knex.Transaction, emit: Emit, mail: RecordMail) => Promise<T>, options: ChangeOptions): Promise<T> {
    let emitted = false;
    let mailed = false;
    try {
      const result = await runAgainOnConflict(() => {
        emitted = mailed = false;
        return this.db.transaction(async (trx) =>
          withinTransaction(this.service, () =>
            work(
              trx,
              (event) => {
                emitted = true;
                return recordEvent(trx, this.service, this.clock, event);
              },
              (mail) => {
                if (!this.mailer) throw new Error(`the ${this.service} service sends no mail (its storage is opened without { mail: true })`);
                mailed = true;
                return this.mailer.record(trx, mail);
              },
            ),
          ),
        );
      });
      if (emitted) this.relay.kick();
      if (mailed) this.mailer?.kick();
      return result;
    } catch (err) {
      if (options.onDuplicate && isUniqueViolation(err)) throw options.onDuplicate();
      throw err;
    }
  }

  startRelay(): void {
    this.relay.start();
  }

  /** Starts sending the mails changes record (a service opened with `{ mail: true }`). */
  startMailer(): void {
    if (!this.mailer) throw new Error(`the ${this.service} service sends no mail`);
    this.mailer.start();
  }

  /** Publishes what is pending now (tests and shutdown). */
  flush(): Promise<void> {
    return this.relay.tick();
  }

  /** Sends the mails due now (tests). */
  flushMail(): Promise<void> {
    return this.mailer?.tick() ?? Promise.resolve();
  }

  async ready(): Promise<boolean> {
    try {
      await this.db.raw("select 1");
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.relay.stop();
    await this.mailer?.stop();
    await this.db.destroy();
  }
}
