import { dbDate, type Knex } from "../../lib/db.js";

export interface SubscriptionRow {
  id: string;
  service: string;
  workspace_id: string;
  url: string;
  description: string;
  secret: string;
  event_filters: string;
  enabled: boolean;
  created_at: Date;
}

export interface NotificationRow {
  seq: number;
  id: string;
  subscription_id: string;
  event_id: string;
  body: string;
  state: "pending" | "delivered" | "given_up";
  attempts: number;
  next_attempt_at_ms: number;
}

function subscriptionRow(row: Record<string, unknown>): SubscriptionRow {
  return { ...(row as unknown as SubscriptionRow), enabled: Boolean(row.enabled), created_at: dbDate(row.created_at as Date) };
}

/** The notifier schema's queries. */
export class NotifierStore {
  constructor(readonly db: Knex) {}

  async insertSubscription(row: SubscriptionRow): Promise<void> {
    await this.db("subscriptions").insert({ ...row });
  }

  async subscription(id: string): Promise<SubscriptionRow | undefined> {
    const row = await this.db("subscriptions").where({ id }).first();
    return row ? subscriptionRow(row) : undefined;
  }

  async subscriptions(service: string, workspaceId: string): Promise<SubscriptionRow[]> {
    const rows = await this.db("subscriptions").where({ service, workspace_id: workspaceId }).orderBy("created_at");
    return rows.map(subscriptionRow);
  }

  async deleteSubscription(id: string): Promise<number> {
    return this.db.transaction(async (trx): Promise<number> => {
      await trx("notifications").where({ subscription_id: id }).delete();
      return trx("subscriptions").where({ id }).delete();
    });
  }

  /** Queues notifications; one already queued for the same event and subscription is kept. */
  async enqueue(rows: Omit<NotificationRow, "seq">[], now: Date): Promise<void> {
    if (rows.length === 0) return;
    await this.db("notifications")
      .insert(rows.map((r) => ({ ...r, created_at: now })))
      .onConflict(["subscription_id", "event_id"])
      .ignore();
  }

  /** The oldest pending notification of every subscription whose turn has come. */
  async dueHeads(nowMs: number, excluded: string[], limit: number): Promise<NotificationRow[]> {
    const heads = this.db("notifications").where({ state: "pending" }).groupBy("subscription_id").select("subscription_id").min({ seq: "seq" });
    const q = this.db("notifications as n")
      .join(heads.as("h"), "h.seq", "n.seq")
      .where("n.next_attempt_at_ms", "<=", nowMs)
      .orderBy("n.next_attempt_at_ms")
      .limit(limit)
      .select("n.*");
    if (excluded.length) q.whereNotIn("n.subscription_id", excluded);
    const rows = await q;
    return rows.map((r: NotificationRow) => ({ ...r, seq: Number(r.seq), attempts: Number(r.attempts), next_attempt_at_ms: Number(r.next_attempt_at_ms) }));
  }

  async recordAttempt(
    n: NotificationRow,
    result: { status?: number; error?: string; latencyMs: number },
    next: { state: NotificationRow["state"]; attempts: number; nextAttemptAtMs: number },
    now: Date,
  ): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx("delivery_attempts").insert({
        notification_id: n.id,
        subscription_id: n.subscription_id,
        attempted_at: now,
        status_code: result.status ?? null,
        error: result.error?.slice(0, 500) ?? null,
        latency_ms: result.latencyMs,
      });
      await trx("notifications")
        .where({ seq: n.seq })
        .update({
          state: next.state,
          attempts: next.attempts,
          next_attempt_at_ms: next.nextAttemptAtMs,
          finished_at: next.state === "pending" ? null : now,
        });
    });
  }
}
