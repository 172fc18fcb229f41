import { isMysql, type Knex } from "../../../lib/db.js";
import type { SecretBox } from "../../../lib/secret-box.js";
import { MAX_ERROR_LENGTH, notificationRow, type NotificationRow } from "../notifications/store.js";
import type { Family } from "../subscriptions/store.js";
import { chunks } from "../../../lib/chunks.js";
import { idBinding, readId } from "../../../lib/ids.js";

/** Subscriptions' queues read by one statement (SQLite allows 500 parts to a compound select). */
const QUEUES_PER_READ = 100;

/** Opened secrets a replica keeps (one per subscription it delivers). */
const OPENED_SECRETS = 10_000;

/** The outcome of one delivery attempt of a queued notification, as the dispatcher records it. */
export interface AttemptResult {
  notification: Pick<NotificationRow, "seq" | "id" | "subscription_id">;
  attempt: number;
  at: Date;
  status?: number;
  error?: string;
  latencyMs: number;
  outcome: "delivered" | "failed" | "given_up";
  nextAttemptAtMs: number;
}

/** A pending notification with what delivering it needs: its event's payload, its subscription's URL and secret. */
export interface Deliverable extends NotificationRow {
  template: string;
  family: Family;
  url: string;
  secret: string;
  enabled: boolean;
}

/**
 * What the dispatcher reads and writes: the live replicas, the subscriptions' claims, the due
 * queues with what delivering them needs, and the records of attempts.
 *
 * A claim (`claimed_by`, `claim_expires_ms` of a subscription) is a lease per subscription, but
 * not lib/background.ts's Lease: a replica claims, renews and lets go of many subscriptions in
 * one statement each, and which subscriptions are due depends on who claims them.
 */
export class DispatchStore {
  /**
   * Secrets opened, by their sealed value: a queue is read again after every event that wakes
   * it, and opening (AES-GCM) each time cost more than the read's share of the query. A secret
   * that changes is sealed anew, so it is another key here; the oldest go first.
   */
  private readonly opened = new Map<string, string>();

  /** MySQL and SQLite take a read of many queues in different forms (pendingBatches). */
  private readonly mysql: boolean;

  constructor(
    private readonly db: Knex,
    private readonly box: SecretBox,
  ) {
    this.mysql = isMysql(db);
  }

  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = this.box.open(sealed);
      if (this.opened.size >= OPENED_SECRETS) this.opened.delete(this.opened.keys().next().value!);
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  // Replicas

  async heartbeat(replica: string, nowMs: number): Promise<void> {
    await this.db("replicas").insert({ id: replica, seen_at_ms: nowMs }).onConflict("id").merge();
  }

  /** Replicas seen since `sinceMs`, in a stable order; stale rows are removed. */
  async liveReplicas(sinceMs: number): Promise<string[]> {
    await this.db("replicas").where("seen_at_ms", "<", sinceMs - 3_600_000).delete();
    const rows: { id: string }[] = await this.db("replicas").where("seen_at_ms", ">=", sinceMs).orderBy("id").select("id");
    return rows.map((r) => r.id);
  }

  async removeReplica(replica: string): Promise<void> {
    await this.db("replicas").where({ id: replica }).delete();
  }

  // Claims

  /**
   * Subscriptions whose oldest pending notification is due and that this replica may take: it
   * owns them (`id mod replicas = index`) or already claims them, and no other replica's claim
   * is alive. Oldest due first.
   */
  async dueSubscriptions(opts: { nowMs: number; holder: string; share: { index: number; of: number }; limit: number }): Promise<bigint[]> {
    const q = this.oldestPending()
      .join("subscriptions as s", "s.id", "n.subscription_id")
      .where("n.next_attempt_at_ms", "<=", opts.nowMs)
      .where("s.enabled", true)
      .where((w) => w.where("s.claimed_by", opts.holder).orWhere((free) => free.whereRaw("?? % ? = ?", ["s.id", opts.share.of, opts.share.index]).andWhere((x) => x.whereNull("s.claimed_by").orWhere("s.claim_expires_ms", "<", opts.nowMs))))
      .orderBy("n.next_attempt_at_ms")
      .limit(opts.limit)
      .select("n.subscription_id");
    const rows: { subscription_id: number | string }[] = await q;
    return rows.map((r) => readId(r.subscription_id));
  }

  /**
   * Each queue's oldest pending notification as `n`, read by one probe of the (state,
   * subscription_id, seq) index per subscription with a queue: the backlog of a receiver that has
   * been down is not read again on every look for due work. The forms differ by engine. MariaDB
   * finds the heads by a loose index scan ("Using index for group-by"), which it plans for a range
   * on `state` but not for `state = 'pending'` (then it reads every pending entry). SQLite has no
   * loose index scan: a recursive query steps from one subscription with a queue to the next, each
   * step and each head one search of the index.
   */
  private oldestPending(): Knex.QueryBuilder {
    if (this.mysql) {
      const heads = this.db("notifications").whereBetween("state", ["pending", "pending"]).groupBy("state", "subscription_id").select("subscription_id").min({ seq: "seq" });
      return this.db("notifications as n").join(heads.as("h"), "h.seq", "n.seq");
    }
    const pending = (alias: string) => this.db(`notifications as ${alias}`).where(`${alias}.state`, "pending");
    const nextQueue = (after?: string) => {
      const q = pending("p").orderBy("p.subscription_id").limit(1).select("p.subscription_id");
      return after ? q.where("p.subscription_id", ">", this.db.ref(after)) : q;
    };
    const queued = this.db.queryBuilder().unionAll([
      this.db.select(nextQueue().as("subscription_id")),
      this.db("queued as q").whereNotNull("q.subscription_id").select(nextQueue("q.subscription_id").as("subscription_id")),
    ]);
    const head = pending("h").where("h.subscription_id", this.db.ref("q.subscription_id")).orderBy("h.seq").limit(1).select("h.seq");
    return this.db
      .withRecursive("queued", ["subscription_id"], queued)
      .from("queued as q")
      .join("notifications as n", (on) => on.on("n.seq", "=", this.db.raw("(?)", [head])));
  }

  /** Claims what no live claim of another replica holds; answers the ids now claimed by `holder`. */
  async claim(ids: bigint[], holder: string, nowMs: number, ttlMs: number): Promise<bigint[]> {
    if (ids.length === 0) return [];
    await this.db("subscriptions")
      .whereIn("id", ids.map(idBinding))
      .andWhere((q) => q.where({ claimed_by: holder }).orWhereNull("claimed_by").orWhere("claim_expires_ms", "<", nowMs))
      .update({ claimed_by: holder, claim_expires_ms: nowMs + ttlMs });
    return this.claimedBy(ids, holder);
  }

  /** Extends the claims `holder` still has among `ids`; answers those. */
  async renewClaims(ids: bigint[], holder: string, nowMs: number, ttlMs: number): Promise<bigint[]> {
    if (ids.length === 0) return [];
    await this.db("subscriptions").whereIn("id", ids.map(idBinding)).where({ claimed_by: holder }).update({ claim_expires_ms: nowMs + ttlMs });
    return this.claimedBy(ids, holder);
  }

  async releaseClaims(ids: bigint[], holder: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db("subscriptions").whereIn("id", ids.map(idBinding)).where({ claimed_by: holder }).update({ claimed_by: null, claim_expires_ms: 0 });
  }

  private async claimedBy(ids: bigint[], holder: string): Promise<bigint[]> {
    const rows: { id: number | string }[] = await this.db("subscriptions").whereIn("id", ids.map(idBinding)).where({ claimed_by: holder }).select("id");
    return rows.map((r) => readId(r.id));
  }

  // Queues

  /**
   * The next pending notifications of each of the subscriptions (at most `limit` each), in
   * order, after the seq given for each (what its worker attempted already: a record may still be
   * on its way), with the subscription's current URL and secret: one statement for many workers,
   * each subscription's part a range of the (state, subscription_id, seq) index that stops after
   * `limit` rows, however long the queue behind them. The events' payload templates are not in
   * it (see `templates`).
   */
  async pendingBatches(after: Map<bigint, bigint>, limit: number): Promise<Map<bigint, Omit<Deliverable, "template">[]>> {
    const out = new Map<bigint, Omit<Deliverable, "template">[]>([...after.keys()].map((id) => [id, []]));
    for (const slice of chunks([...after], QUEUES_PER_READ)) {
      const parts = slice.map(([id, seq]) => this.queueHead(id, seq, limit));
      // MySQL reads parenthesized parts as they are (derived tables it would materialize one by
      // one); SQLite takes no parentheses in a compound select, and flattens derived tables.
      const union = this.mysql ? parts : parts.map((part, i) => this.db.select("*").from(part.as(`q${i}`)));
      const rows: Record<string, unknown>[] = await this.db.queryBuilder().unionAll(union, this.mysql);
      for (const r of rows) {
        const notification = notificationRow(r);
        const deliverable = { ...notification, family: r.family as Family, url: String(r.url), secret: this.open(String(r.secret_sealed)), enabled: Boolean(r.enabled) };
        out.get(notification.subscription_id)!.push(deliverable);
      }
    }
    // A union keeps no order across its parts, nor need a derived table its own.
    for (const list of out.values()) list.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    return out;
  }

  /** The first `limit` pending notifications of one subscription after `afterSeq`, with the subscription's delivery fields. */
  private queueHead(subscriptionId: bigint, afterSeq: bigint, limit: number): Knex.QueryBuilder {
    const q = this.db("notifications as n")
      .join("subscriptions as s", "s.id", "n.subscription_id")
      .where({ "n.state": "pending", "n.subscription_id": idBinding(subscriptionId) });
    if (afterSeq > 0n) q.where("n.seq", ">", idBinding(afterSeq));
    return q.orderBy("n.seq").limit(limit).select("n.*", "s.family", "s.url", "s.secret_sealed", "s.enabled");
  }

  /** The payload templates of the events (they never change once written). */
  async templates(eventIds: string[]): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const rows: { event_id: string; template: string }[] = await this.db("event_payloads").whereIn("event_id", eventIds).select("event_id", "template");
    return new Map(rows.map((r) => [r.event_id, r.template]));
  }

  // Records

  /** Records attempts of many subscriptions in one transaction (the dispatcher's group commit). */
  async recordResults(results: AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    await this.db.transaction(async (trx) => {
      for (const chunk of chunks(results)) {
        await trx("delivery_attempts").insert(
          chunk.map((r) => ({
            subscription_id: r.notification.subscription_id,
            notification_id: r.notification.id,
            attempt: r.attempt,
            attempted_at: r.at,
            status_code: r.status ?? null,
            error: r.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
            latency_ms: r.latencyMs,
            outcome: r.outcome,
          })),
        );
      }
      for (const r of results) {
        if (r.outcome === "delivered") continue;
        await trx("notifications")
          .where({ seq: r.notification.seq, state: "pending" })
          .update({
            state: r.outcome === "given_up" ? "given_up" : "pending",
            attempts: r.attempt,
            next_attempt_at_ms: r.nextAttemptAtMs,
            finished_at: r.outcome === "given_up" ? r.at : null,
          });
      }
      // Delivered ones share one statement per attempt number (nearly all are first attempts).
      const byAttempt = new Map<number, AttemptResult[]>();
      for (const r of results) {
        if (r.outcome !== "delivered") continue;
        const group = byAttempt.get(r.attempt);
        if (group) group.push(r);
        else byAttempt.set(r.attempt, [r]);
      }
      for (const [attempt, group] of byAttempt) {
        await trx("notifications")
          .whereIn(
            "seq",
            group.map((r) => idBinding(r.notification.seq)),
          )
          .where({ state: "pending" })
          .update({ state: "delivered", attempts: attempt, finished_at: group[group.length - 1].at });
      }
    });
  }
}
