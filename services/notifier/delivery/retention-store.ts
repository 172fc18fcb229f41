import type { Knex } from "../../../lib/db.js";

/**
 * The retention's purges. Each removes up to `limit` rows in short statements of its own. The keys
 * are read first (MariaDB refuses LIMIT in an IN subquery, SQLite has no DELETE ... LIMIT), then
 * the delete repeats the condition: rows that changed meanwhile stay, and replicas purging at once
 * remove each row once.
 */
export class RetentionStore {
  constructor(private readonly db: Knex) {}

  /** Removes delivered or given-up notifications that finished before `cutoff`; answers how many. */
  async purgeFinishedNotifications(cutoff: Date, limit: number): Promise<number> {
    // "Not pending" rather than a list of states keeps both planners on the finished_at index.
    const finished = (q: Knex.QueryBuilder) => q.where("finished_at", "<", cutoff).whereNot({ state: "pending" });
    const seqs = await finished(this.db("notifications")).limit(limit).pluck("seq");
    return this.deleteStillMatching("notifications", "seq", seqs, finished);
  }

  /** Removes delivery log entries (attempts and pings) made before `cutoff`; answers how many. */
  async purgeAttempts(cutoff: Date, limit: number): Promise<number> {
    const old = (q: Knex.QueryBuilder) => q.where("attempted_at", "<", cutoff);
    const ids = await old(this.db("delivery_attempts")).limit(limit).pluck("id");
    return this.deleteStillMatching("delivery_attempts", "id", ids, old);
  }

  /**
   * Removes event payloads written before `cutoff` that no notification uses; answers how many.
   * The delete checks again that none does, so a payload that a notification queued meanwhile
   * needs is never removed.
   */
  async purgeUnusedPayloads(cutoff: Date, limit: number): Promise<number> {
    // An anti-join finds them with index lookups in both engines; MariaDB may run a NOT EXISTS
    // over many rows as a scan of the whole notifications index.
    const ids = await this.db("event_payloads as p")
      .leftJoin("notifications as n", "n.event_id", "p.event_id")
      .where("p.created_at", "<", cutoff)
      .whereNull("n.event_id")
      .limit(limit)
      .pluck("p.event_id");
    const unused = (q: Knex.QueryBuilder) =>
      q.where("created_at", "<", cutoff).whereNotExists((used) => used.select(this.db.raw("1")).from("notifications").whereRaw("?? = ??", ["notifications.event_id", "event_payloads.event_id"]));
    return this.deleteStillMatching("event_payloads", "event_id", ids, unused);
  }

  private async deleteStillMatching(table: string, key: string, keys: (string | number)[], condition: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
    if (keys.length === 0) return 0;
    return condition(this.db(table).whereIn(key, keys)).delete();
  }
}
