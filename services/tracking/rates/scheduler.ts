import type { Clock } from "../../../lib/clock.js";
import type { Knex } from "../../../lib/db.js";
import type { Logger } from "../../../lib/logger.js";
import { RateScheduler as RateHistoryScheduler, type RateSchedulerOptions } from "../../../lib/rate-history.js";
import type { Emit, ServiceStorage } from "../../../lib/storage.js";
import { rateHistory, type RateRow } from "./store.js";
import { applyCurrentRate, entityOfRate } from "./sync.js";

/**
 * Makes a project's, project user's or task's rate that begins later its current value when it
 * begins, with the entity's event (lib/rate-history.ts `RateScheduler`; lease `rates`).
 */
export class RateScheduler extends RateHistoryScheduler<RateRow> {
  constructor(storage: ServiceStorage, deps: { clock: Clock; log: Logger }, options: RateSchedulerOptions = {}) {
    super(storage, rateHistory, deps.clock, deps.log, options);
  }

  /** The rate's creator is the change's actor. */
  protected apply(trx: Knex.Transaction, emit: Emit, rate: RateRow, now: Date): Promise<void> {
    const actor = { workspace: rate.workspace_id, workspaceId: rate.workspace_id, userId: rate.creator_id };
    return applyCurrentRate(trx, emit, actor, entityOfRate(rate), rate.type, now);
  }
}
