import type { Clock } from "../../../lib/clock.js";
import type { Knex } from "../../../lib/db.js";
import type { Logger } from "../../../lib/logger.js";
import { RateScheduler, rateKeyOf, type RateSchedulerOptions } from "../../../lib/rate-history.js";
import type { Emit, ServiceStorage } from "../../../lib/storage.js";
import { applyWorkspaceRate } from "./apply.js";
import { workspaceRateHistory, type WorkspaceRateRow } from "./store.js";

/**
 * Makes a workspace's or workspace user's rate that begins later its value when it begins, with
 * the entity's event (lib/rate-history.ts `RateScheduler`; lease `workspace_rates`).
 */
export class WorkspaceRateScheduler extends RateScheduler<WorkspaceRateRow> {
  constructor(storage: ServiceStorage, deps: { clock: Clock; log: Logger }, options: RateSchedulerOptions = {}) {
    super(storage, workspaceRateHistory, deps.clock, deps.log, options);
  }

  protected apply(trx: Knex.Transaction, emit: Emit, rate: WorkspaceRateRow, now: Date): Promise<void> {
    return applyWorkspaceRate(trx, emit, rateKeyOf(rate), rate.creator_id, now);
  }
}
