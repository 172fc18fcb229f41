import { LeasedWork } from "../../../lib/background.js";
import type { Clock } from "../../../lib/clock.js";
import type { Logger } from "../../../lib/logger.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import { rates, type RateRow } from "./store.js";
import { applyCurrentRate, entityOfRate } from "./sync.js";

/** Rates applied per query; a pass goes on until none is due. */
const BATCH = 100;

export interface RateSchedulerOptions {
  /** Milliseconds between passes (a rate begins at a time given to the second; a minute late is timely enough). */
  pollMs?: number;
  leaseMs?: number;
}

/**
 * RateScheduler makes a rate that begins later (an explicit start ahead, `start-today` before
 * midnight) its entity's current value when it begins, with the entity's event, one replica at a
 * time (it holds the `rates` lease). Each rate is applied in one change that marks it applied, so a
 * restart between passes neither loses nor repeats one.
 */
export class RateScheduler extends LeasedWork {
  constructor(
    private readonly storage: ServiceStorage,
    private readonly deps: { clock: Clock; log: Logger },
    options: RateSchedulerOptions = {},
  ) {
    super(storage.db, "rates", deps.clock, deps.log, { pollMs: options.pollMs ?? 60_000, leaseMs: options.leaseMs ?? 5 * 60_000 });
  }

  protected async pass(): Promise<void> {
    for (;;) {
      const now = this.deps.clock.now();
      const due: RateRow[] = (await this.storage.db(rates.table).whereNull("applied_at").whereNull("deleted_at").where("start", "<=", now).orderBy("start").orderBy("id").limit(BATCH))
        .map((raw: Record<string, unknown>) => rates.read(raw));
      for (const rate of due) await this.apply(rate, now);
      if (due.length < BATCH || !(await this.stillHeld())) return;
    }
  }

  /** The rate's entity follows the rate that holds now; the rate's creator is the change's actor. */
  private async apply(rate: RateRow, now: Date): Promise<void> {
    const actor = { workspace: rate.workspace_id, workspaceId: BigInt(rate.workspace_id), userId: BigInt(rate.creator_id) };
    await this.storage.change((trx, emit) => applyCurrentRate(trx, emit, actor, entityOfRate(rate), rate.type, now));
  }
}
