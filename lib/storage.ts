import type { Config, ServiceName } from "./config.js";
import type { Clock } from "./clock.js";
import type { EventBus } from "./bus.js";
import type { Logger } from "./logger.js";
import type { ConnectError } from "@connectrpc/connect";
import { isDeadlock, isUniqueViolation, openDatabase, type Knex, type Migration } from "./db.js";
import { OutboxRelay, outboxMigration, recordEvent, type DomainEvent } from "./events.js";

/** Runs of a transaction that deadlocked, in all. */
const MAX_ATTEMPTS = 3;

/** Records events inside a transaction; they are published after it commits. */
export type Emit = (event: DomainEvent) => Promise<string>;

/** What a change declares about itself. */
export interface ChangeOptions {
  /** The error a unique-key violation means for this call (a name taken, the same record twice). */
  onDuplicate?: () => ConnectError;
}

/**
 * ServiceStorage is a service's own schema with its outbox: `change` runs a change and the
 * events it records atomically, then lets the relay publish them.
 */
export class ServiceStorage {
  private constructor(
    readonly db: Knex,
    private readonly relay: OutboxRelay,
    private readonly service: ServiceName,
    private readonly clock: Clock,
  ) {}

  static async open(deps: { config: Config; clock: Clock; bus: EventBus; log: Logger }, service: ServiceName, migrations: Migration[]): Promise<ServiceStorage> {
    const db = await openDatabase(deps.config, service, [outboxMigration, ...migrations]);
    return new ServiceStorage(db, new OutboxRelay(db, deps.bus, deps.log), service, deps.clock);
  }

  /**
   * Runs `work` and the events it records in one transaction. Concurrent writers can deadlock
   * in MySQL (locking reads take gap locks where new rows go): the victim, rolled back with its
   * outbox rows, runs again, up to three times in all. A unique-key violation becomes the
   * error the call declares.
   */
  async change<T>(work: (trx: Knex.Transaction, emit: Emit) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let emitted = false;
      try {
        const result = await this.db.transaction(async (trx) =>
          work(trx, (event) => {
            emitted = true;
            return recordEvent(trx, this.service, this.clock, event);
          }),
        );
        if (emitted) this.relay.kick();
        return result;
      } catch (err) {
        if (isDeadlock(err) && attempt < MAX_ATTEMPTS) continue;
        if (options.onDuplicate && isUniqueViolation(err)) throw options.onDuplicate();
        throw err;
      }
    }
  }

  startRelay(): void {
    this.relay.start();
  }

  /** Publishes what is pending now (tests and shutdown). */
  flush(): Promise<void> {
    return this.relay.tick();
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
    await this.db.destroy();
  }
}
