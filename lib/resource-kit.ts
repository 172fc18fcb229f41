import type { Client } from "@connectrpc/connect";
import type { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import type { Clock } from "./clock.js";
import type { Knex } from "./db.js";
import type { ChangeOptions, Emit, ServiceStorage } from "./storage.js";
import type { ScopedTable } from "./scoped-table.js";

/**
 * What a resource's handlers are built from: the service's storage (changes with their events),
 * the clock and the accounts service. Who may act where is not among them: each RPC declares its
 * access and the service's access interceptor resolves it (tracking: `trackingScope(ctx)`, `trackingUserScope(ctx)` of `services/tracking/scope.ts`). A resource folder exports
 * `<resource>Handlers(kit)`, which the service's routes file composes.
 */
export interface ResourceKit {
  storage: ServiceStorage;
  clock: Clock;
  /** Questions to the accounts service beyond access (a workspace's members, its organization's groups, profiles); its refusals come rewrapped (`Directory.peerClient`). */
  identity: Client<typeof IdentityService>;
}

/**
 * Changes one row of a scope: in one change, reads the row locked, throws the call's `missing`
 * error when it is not there (also for ids no row can have), then runs `work` on it.
 */
export function changeRow<Row extends { id: bigint }, T>(
  storage: ServiceStorage,
  table: ScopedTable<Row>,
  where: { scope: bigint; id: bigint; missing: () => Error },
  work: (existing: Row, trx: Knex.Transaction, emit: Emit) => Promise<T>,
  options?: ChangeOptions,
): Promise<T> {
  return storage.change(async (trx, emit) => {
    const existing = await table.getForChange(trx, where.scope, where.id);
    if (!existing) throw where.missing();
    return work(existing, trx, emit);
  }, options);
}
