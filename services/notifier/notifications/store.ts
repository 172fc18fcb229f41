import { dbDate, type Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";

export type NotificationState = "pending" | "delivered" | "given_up";

export interface NotificationRow {
  seq: bigint;
  id: string;
  subscription_id: bigint;
  event_id: string;
  state: NotificationState;
  /** Attempts made since it was queued (or replayed). */
  attempts: number;
  next_attempt_at_ms: number;
  created_at: Date;
  finished_at: Date | null;
}

export type NewNotification = Omit<NotificationRow, "seq" | "finished_at">;

export type AttemptOutcome = "delivered" | "failed" | "given_up" | "ping_ok" | "ping_failed";

/** An entry of the delivery log (`delivery_attempts`): an attempt of a notification, or a ping. */
export interface AttemptRow {
  id: bigint;
  subscription_id: bigint;
  notification_id: string | null;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  outcome: AttemptOutcome;
}

export function notificationRow(row: Record<string, unknown>): NotificationRow {
  return {
    seq: readId(row.seq),
    id: String(row.id),
    subscription_id: readId(row.subscription_id),
    event_id: String(row.event_id),
    state: row.state as NotificationState,
    attempts: Number(row.attempts),
    next_attempt_at_ms: Number(row.next_attempt_at_ms),
    created_at: dbDate(row.created_at as Date),
    finished_at: row.finished_at == null ? null : dbDate(row.finished_at as Date),
  };
}

function attemptRow(row: Record<string, unknown>): AttemptRow {
  return {
    id: readId(row.id),
    subscription_id: readId(row.subscription_id),
    notification_id: (row.notification_id as string | null) ?? null,
    attempt: Number(row.attempt),
    attempted_at: dbDate(row.attempted_at as Date),
    status_code: row.status_code == null ? null : Number(row.status_code),
    error: (row.error as string | null) ?? null,
    latency_ms: Number(row.latency_ms),
    outcome: row.outcome as AttemptOutcome,
  };
}

/** The longest error text the delivery log keeps (the column's size). */
export const MAX_ERROR_LENGTH = 500;

/**
 * The queues (`notifications`) and the delivery log (`delivery_attempts`) as operators see them:
 * what is pending, a subscription's notifications and log, replaying a given-up notification.
 * Queuing is ingest's (delivery/ingest-store.ts), recording attempts the dispatcher's
 * (delivery/dispatch-store.ts).
 */
export class NotificationStore {
  constructor(private readonly db: Knex) {}

  /** Pending notifications of the given subscriptions, or of all (those with none are left out). */
  async pendingCounts(ids?: bigint[]): Promise<Map<bigint, number>> {
    const q = this.db("notifications").where({ state: "pending" }).groupBy("subscription_id").select("subscription_id").count({ n: "*" });
    if (ids) {
      if (ids.length === 0) return new Map();
      q.whereIn("subscription_id", ids.map(idBinding));
    }
    const rows = (await q) as unknown as { subscription_id: number | string; n: number | string }[];
    return new Map(rows.map((r) => [readId(r.subscription_id), Number(r.n)]));
  }

  /** A subscription's notifications, newest first, optionally of one state. */
  async list(subscriptionId: bigint, state: NotificationState | undefined, limit: number): Promise<NotificationRow[]> {
    const q = this.db("notifications").where({ subscription_id: subscriptionId }).orderBy("seq", "desc").limit(limit);
    if (state) q.where({ state });
    return (await q).map(notificationRow);
  }

  async get(id: string): Promise<NotificationRow | undefined> {
    const row = await this.db("notifications").where({ id }).first();
    return row ? notificationRow(row) : undefined;
  }

  /**
   * Queues a given-up notification again at the end of its subscription's queue: the row is
   * written anew (a new place in the order) with the same id and event.
   */
  async replay(id: string, now: Date): Promise<NotificationRow | undefined> {
    return this.db.transaction(async (trx) => {
      const row = await trx("notifications").where({ id, state: "given_up" }).first();
      if (!row) return undefined;
      const old = notificationRow(row);
      await trx("notifications").where({ seq: old.seq }).delete();
      const fresh: NewNotification = { id: old.id, subscription_id: old.subscription_id, event_id: old.event_id, state: "pending", attempts: 0, next_attempt_at_ms: now.getTime(), created_at: old.created_at };
      await trx("notifications").insert(fresh);
      const inserted = await trx("notifications").where({ id }).first();
      return notificationRow(inserted);
    });
  }

  /** A subscription's delivery log, newest first, before the entry `beforeId` when given. */
  async attempts(subscriptionId: bigint, limit: number, beforeId?: bigint): Promise<AttemptRow[]> {
    const q = this.db("delivery_attempts").where({ subscription_id: subscriptionId }).orderBy("id", "desc").limit(limit);
    if (beforeId) q.where("id", "<", idBinding(beforeId));
    return (await q).map(attemptRow);
  }

  /** Logs an attempt that belongs to no notification (a ping or a validation request). */
  async recordPing(subscriptionId: bigint, at: Date, result: { status?: number; error?: string; latencyMs: number; ok: boolean }): Promise<void> {
    await this.db("delivery_attempts").insert({
      subscription_id: subscriptionId,
      notification_id: null,
      attempt: 1,
      attempted_at: at,
      status_code: result.status ?? null,
      error: result.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
      latency_ms: result.latencyMs,
      outcome: result.ok ? "ping_ok" : "ping_failed",
    });
  }
}
