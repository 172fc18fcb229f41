import type { Knex } from "../../lib/db.js";
import { idBinding } from "../../lib/ids.js";
import { runAgainOnConflict } from "../../lib/storage.js";
import { timeEntries } from "../../services/tracking/time-entries/store.js";

/**
 * The bare server's writes of a start-then-stop pair: the same rows the service writes, by knex, in
 * a transaction each, with nothing else (no outbox, no event, no message). The tracking bench's bare
 * server answers them over HTTP; bench:layers runs them in its own process.
 */
export interface BareTimer {
  /** Stops the running row and inserts a running one, in one transaction; answers the new row's id. */
  start(): Promise<number>;
  /** Locks the row, then stops it; answers the row as it was. */
  stop(id: number): Promise<unknown>;
}

export function bareTimer(db: Knex, userId: bigint, workspaceId: number): BareTimer {
  /** A transaction, run again when it loses a conflict with another process's write, as the service's changes are. */
  const change = <T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> => runAgainOnConflict(() => db.transaction(work));
  return {
    start: () => {
      const now = new Date(Math.floor(Date.now() / 1000) * 1000);
      return change(async (trx) => {
        const running = await trx(timeEntries.table).where("running_user_id", idBinding(userId)).first().forUpdate();
        if (running) await trx(timeEntries.table).where("id", running.id).update({ stop: now, duration: 0, running_user_id: null, at: new Date() });
        const [inserted] = await trx(timeEntries.table).insert({
          workspace_id: workspaceId, user_id: userId, billable: false, start: now, duration: -Math.round(now.getTime() / 1000),
          running_user_id: userId, tag_ids: "[]", shared_with_user_ids: "[]", created_with: "bare", created_at: new Date(), at: new Date(),
        });
        return Number(inserted);
      });
    },
    stop: (id) =>
      change(async (trx) => {
        const running = await trx(timeEntries.table).where("id", id).first().forUpdate();
        await trx(timeEntries.table).where("id", id).update({ stop: new Date(), duration: 0, running_user_id: null, at: new Date() });
        return running;
      }),
  };
}
