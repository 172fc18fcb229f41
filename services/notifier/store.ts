import { createHash } from "node:crypto";
import { dbDate, type Knex } from "../../lib/db.js";
import { secretsEqual } from "../../lib/identity.js";
import type { SecretBox } from "../../lib/secret-box.js";

/** Which services' events a subscription receives: the hiring service's, or the time-tracking family's. */
export type Family = "hiring" | "tracking";

export interface Filter {
  entity: string;
  action: string;
}

export interface SubscriptionRow {
  id: number;
  family: Family;
  workspace_id: string;
  /** Time-tracking user who made it; 0 for subscriptions made over the internal RPCs. */
  user_id: number;
  description: string;
  url: string;
  /** The signing secret in clear; sealed at rest (`secret_sealed`). */
  secret: string;
  event_filters: Filter[];
  enabled: boolean;
  /**
   * The validation code in clear, only where it was just issued: at rest is its SHA-256 alone
   * (`validation_code_sha256`), so a row read back carries null.
   */
  validation_code: string | null;
  validated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewSubscription = Omit<SubscriptionRow, "id">;

export type NotificationState = "pending" | "delivered" | "given_up";

export interface NotificationRow {
  seq: number;
  id: string;
  subscription_id: number;
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

export interface AttemptRow {
  id: number;
  subscription_id: number;
  notification_id: string | null;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  outcome: AttemptOutcome;
}

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

/** An event's notification body without what differs per subscription (see payloads.ts). */
export interface EventPayload {
  event_id: string;
  template: string;
  created_at: Date;
}

/** A pending notification with what delivering it needs: its event's payload, its subscription's URL and secret. */
export interface Deliverable extends NotificationRow {
  template: string;
  family: Family;
  url: string;
  secret: string;
  enabled: boolean;
}

/** The ingest_state row of the EVENTS stream. */
const INGEST = "events";

/** How a validation code is kept: its SHA-256 in hex (codes are random, 192 bits: no salt needed). */
function validationCodeHash(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

function subscriptionRow(row: Record<string, unknown>, secret: string): SubscriptionRow {
  return {
    id: Number(row.id),
    family: row.family as Family,
    workspace_id: String(row.workspace_id),
    user_id: Number(row.user_id),
    description: String(row.description),
    url: String(row.url),
    secret,
    event_filters: JSON.parse(String(row.event_filters)) as Filter[],
    enabled: Boolean(row.enabled),
    validation_code: null,
    validated_at: row.validated_at == null ? null : dbDate(row.validated_at as Date),
    created_at: dbDate(row.created_at as Date),
    updated_at: dbDate(row.updated_at as Date),
  };
}

function notificationRow(row: Record<string, unknown>): NotificationRow {
  return {
    seq: Number(row.seq),
    id: String(row.id),
    subscription_id: Number(row.subscription_id),
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
    id: Number(row.id),
    subscription_id: Number(row.subscription_id),
    notification_id: (row.notification_id as string | null) ?? null,
    attempt: Number(row.attempt),
    attempted_at: dbDate(row.attempted_at as Date),
    status_code: row.status_code == null ? null : Number(row.status_code),
    error: (row.error as string | null) ?? null,
    latency_ms: Number(row.latency_ms),
    outcome: row.outcome as AttemptOutcome,
  };
}

/** Rows per INSERT statement, well under the engines' limits on bound values. */
const INSERT_CHUNK = 400;

/**
 * The notifier schema's queries. Subscriptions' signing secrets are sealed with the box
 * (AES-256-GCM, ENCRYPTION_KEY) and validation codes hashed as they are written; secrets are
 * opened as they are read.
 */
export class NotifierStore {
  constructor(
    readonly db: Knex,
    private readonly box: SecretBox,
  ) {}

  // Subscriptions

  /**
   * Columns of a subscription as written: the secret sealed, the validation code hashed.
   * Descriptions are unique in a time-tracking workspace; hiring subscriptions and undescribed
   * internal ones have no unique key (null never collides).
   */
  private subscriptionColumns(row: Partial<NewSubscription>): Record<string, unknown> {
    const { secret, validation_code, ...plain } = row;
    const out: Record<string, unknown> = { ...plain };
    if (row.event_filters) out.event_filters = JSON.stringify(row.event_filters);
    if (row.description !== undefined) out.unique_description = row.family === "hiring" ? null : row.description || null;
    if (secret !== undefined) out.secret_sealed = this.box.seal(secret);
    if (validation_code !== undefined) out.validation_code_sha256 = validation_code === null ? null : validationCodeHash(validation_code);
    return out;
  }

  private subscriptionRow(row: Record<string, unknown>): SubscriptionRow {
    return subscriptionRow(row, this.box.open(String(row.secret_sealed)));
  }

  /**
   * Seals the secrets and hashes the validation codes of subscriptions written in clear before
   * they were kept so (migration 0005), and empties their plain columns; answers how many. Runs
   * when the notifier opens; each row changes only while it is still plain, so replicas opening
   * at once convert each row once.
   */
  async sealPlainSubscriptions(): Promise<number> {
    const rows: { id: number | string; secret: string; validation_code: string | null }[] = await this.db("subscriptions").whereNotNull("secret").select("id", "secret", "validation_code");
    let sealed = 0;
    for (const r of rows) {
      sealed += await this.db("subscriptions")
        .where({ id: r.id, secret: r.secret })
        .update({ secret_sealed: this.box.seal(r.secret), validation_code_sha256: r.validation_code === null ? null : validationCodeHash(r.validation_code), secret: null, validation_code: null });
    }
    return sealed;
  }

  async insertSubscription(row: NewSubscription): Promise<SubscriptionRow> {
    const [id] = await this.db("subscriptions").insert(this.subscriptionColumns(row));
    return { ...row, id: Number(id) };
  }

  /**
   * Inserts a subscription unless its workspace has `max` of them already; undefined then. The
   * workspace's lock row, taken for the count and the insert, makes concurrent creations wait
   * for each other, so two cannot both pass the count. (SQLite runs one transaction at a time.)
   */
  async insertSubscriptionWithin(row: NewSubscription, max: number): Promise<SubscriptionRow | undefined> {
    const workspace = { family: row.family, workspace_id: row.workspace_id };
    // Made outside the transaction: taking the lock after inserting it in the same transaction
    // would deadlock two creators that both met the row already there (shared, then exclusive).
    await this.db("workspace_locks").insert(workspace).onConflict(["family", "workspace_id"]).ignore();
    return this.db.transaction(async (trx) => {
      // FOR UPDATE on MySQL; knex leaves it out on SQLite, which runs one transaction at a time.
      await trx("workspace_locks").where(workspace).first("family").forUpdate();
      const [{ n }] = await trx("subscriptions").where(workspace).count({ n: "*" });
      if (Number(n) >= max) return undefined;
      const [id] = await trx("subscriptions").insert(this.subscriptionColumns(row));
      return { ...row, id: Number(id) };
    });
  }

  async subscription(id: number): Promise<SubscriptionRow | undefined> {
    const row = await this.db("subscriptions").where({ id }).first();
    return row ? this.subscriptionRow(row) : undefined;
  }

  async subscriptionsOf(family: Family, workspaceId: string): Promise<SubscriptionRow[]> {
    const rows = await this.db("subscriptions").where({ family, workspace_id: workspaceId }).orderBy("id");
    return rows.map((r) => this.subscriptionRow(r));
  }

  /** Every subscription of the given workspaces, for turning a batch of events into notifications. */
  async subscriptionsOfWorkspaces(keys: { family: Family; workspaceId: string }[]): Promise<SubscriptionRow[]> {
    if (keys.length === 0) return [];
    const rows = await this.db("subscriptions").whereIn(
      ["family", "workspace_id"],
      keys.map((k) => [k.family, k.workspaceId]),
    );
    return rows.map((r) => this.subscriptionRow(r));
  }

  /**
   * Changes a subscription; answers it as it stands after the change (with the validation code
   * in clear when the change issued one), or undefined when it is gone.
   */
  async updateSubscription(id: number, changes: Partial<NewSubscription>): Promise<SubscriptionRow | undefined> {
    const updated = await this.db("subscriptions").where({ id }).update(this.subscriptionColumns(changes));
    if (updated === 0) return undefined;
    const row = await this.subscription(id);
    return row && changes.validation_code !== undefined ? { ...row, validation_code: changes.validation_code } : row;
  }

  /**
   * Replaces the validation code of a subscription that is not validated (only the code's hash is
   * kept, so a ping cannot send the old one again); answers the subscription with the new code in
   * clear, without one when it was validated meanwhile, or undefined when it is gone.
   */
  async reissueValidationCode(id: number, code: string): Promise<SubscriptionRow | undefined> {
    const updated = await this.db("subscriptions").where({ id }).whereNull("validated_at").update({ validation_code_sha256: validationCodeHash(code) });
    const row = await this.subscription(id);
    return row && updated > 0 ? { ...row, validation_code: code } : row;
  }

  /**
   * Validates when the code is the subscription's (hashes compared in constant time); true when
   * it is (or already was) validated.
   */
  async validate(id: number, code: string, now: Date): Promise<boolean> {
    const row = await this.db("subscriptions").where({ id }).first("validation_code_sha256");
    const stored: string | null | undefined = row?.validation_code_sha256;
    if (!stored || !secretsEqual(stored, validationCodeHash(code))) return false;
    // Only while the code is still the one compared: a PUT or a ping may have replaced it meanwhile.
    const updated = await this.db("subscriptions").where({ id, validation_code_sha256: stored }).whereNull("validated_at").update({ validated_at: now });
    if (updated > 0) return true;
    const after = await this.db("subscriptions").where({ id, validation_code_sha256: stored }).first("validated_at");
    return Boolean(after?.validated_at);
  }

  /** Removes a subscription with its queue and its delivery log. */
  async deleteSubscription(id: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      await trx("notifications").where({ subscription_id: id }).delete();
      await trx("delivery_attempts").where({ subscription_id: id }).delete();
      return (await trx("subscriptions").where({ id }).delete()) > 0;
    });
  }

  /** Pending notifications of the given subscriptions (those with none are left out). */
  async pendingCounts(ids?: number[]): Promise<Map<number, number>> {
    const q = this.db("notifications").where({ state: "pending" }).groupBy("subscription_id").select("subscription_id").count({ n: "*" });
    if (ids) {
      if (ids.length === 0) return new Map();
      q.whereIn("subscription_id", ids);
    }
    const rows = (await q) as unknown as { subscription_id: number | string; n: number | string }[];
    return new Map(rows.map((r) => [Number(r.subscription_id), Number(r.n)]));
  }

  // Ingest

  /** Where ingest stands in the stream (0: nothing read yet). */
  async ingestPosition(): Promise<number> {
    const row = await this.db("ingest_state").where({ name: INGEST }).first("position");
    return row ? Number(row.position) : 0;
  }

  /**
   * Queues notifications with their events' payloads. With a position, it is moved from
   * `expected` to `next` first, in the same transaction, and nothing is queued when another
   * replica moved it meanwhile: ingest is exactly once and in stream order, and the position
   * row's lock orders concurrent ingesters. A notification already queued for the same event
   * and subscription is kept.
   */
  async enqueue(rows: NewNotification[], payloads: EventPayload[], position?: { expected: number; next: number }): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      if (position) {
        const moved = await trx("ingest_state").where({ name: INGEST, position: position.expected }).update({ position: position.next });
        if (moved === 0) {
          const exists = await trx("ingest_state").where({ name: INGEST }).first("position");
          if (exists || position.expected !== 0) return false;
          await trx("ingest_state").insert({ name: INGEST, position: position.next, holder: null, expires_at_ms: 0 });
        }
      }
      for (let i = 0; i < payloads.length; i += INSERT_CHUNK) {
        await trx("event_payloads")
          .insert(payloads.slice(i, i + INSERT_CHUNK))
          .onConflict("event_id")
          .ignore();
      }
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await trx("notifications")
          .insert(rows.slice(i, i + INSERT_CHUNK))
          .onConflict(["subscription_id", "event_id"])
          .ignore();
      }
      return true;
    });
  }

  /** Takes or keeps the ingest lease; true while this replica holds it. */
  async holdIngestLease(holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const updated = await this.db("ingest_state")
      .where({ name: INGEST })
      .andWhere((q) => q.where({ holder }).orWhereNull("holder").orWhere("expires_at_ms", "<", nowMs))
      .update({ holder, expires_at_ms: nowMs + ttlMs });
    if (updated > 0) return true;
    try {
      await this.db("ingest_state").insert({ name: INGEST, position: 0, holder, expires_at_ms: nowMs + ttlMs });
      return true;
    } catch {
      return false;
    }
  }

  async releaseIngestLease(holder: string): Promise<void> {
    await this.db("ingest_state").where({ name: INGEST, holder }).update({ holder: null, expires_at_ms: 0 });
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

  // Dispatch

  /**
   * Subscriptions whose oldest pending notification is due and that this replica may take: it
   * owns them (`id mod replicas = index`) or already claims them, and no other replica's claim
   * is alive. Oldest due first.
   */
  async dueSubscriptions(opts: { nowMs: number; holder: string; share: { index: number; of: number }; limit: number }): Promise<number[]> {
    const heads = this.db("notifications").where({ state: "pending" }).groupBy("subscription_id").select("subscription_id").min({ seq: "seq" });
    const q = this.db("notifications as n")
      .join(heads.as("h"), "h.seq", "n.seq")
      .join("subscriptions as s", "s.id", "n.subscription_id")
      .where("n.next_attempt_at_ms", "<=", opts.nowMs)
      .where("s.enabled", true)
      .where((w) => w.where("s.claimed_by", opts.holder).orWhere((free) => free.whereRaw("?? % ? = ?", ["s.id", opts.share.of, opts.share.index]).andWhere((x) => x.whereNull("s.claimed_by").orWhere("s.claim_expires_ms", "<", opts.nowMs))))
      .orderBy("n.next_attempt_at_ms")
      .limit(opts.limit)
      .select("n.subscription_id");
    const rows: { subscription_id: number | string }[] = await q;
    return rows.map((r) => Number(r.subscription_id));
  }

  /** Claims what no live claim of another replica holds; answers the ids now claimed by `holder`. */
  async claim(ids: number[], holder: string, nowMs: number, ttlMs: number): Promise<number[]> {
    if (ids.length === 0) return [];
    await this.db("subscriptions")
      .whereIn("id", ids)
      .andWhere((q) => q.where({ claimed_by: holder }).orWhereNull("claimed_by").orWhere("claim_expires_ms", "<", nowMs))
      .update({ claimed_by: holder, claim_expires_ms: nowMs + ttlMs });
    const rows: { id: number | string }[] = await this.db("subscriptions").whereIn("id", ids).where({ claimed_by: holder }).select("id");
    return rows.map((r) => Number(r.id));
  }

  /** Extends the claims `holder` still has among `ids`; answers those. */
  async renewClaims(ids: number[], holder: string, nowMs: number, ttlMs: number): Promise<number[]> {
    if (ids.length === 0) return [];
    await this.db("subscriptions").whereIn("id", ids).where({ claimed_by: holder }).update({ claim_expires_ms: nowMs + ttlMs });
    const rows: { id: number | string }[] = await this.db("subscriptions").whereIn("id", ids).where({ claimed_by: holder }).select("id");
    return rows.map((r) => Number(r.id));
  }

  async releaseClaims(ids: number[], holder: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db("subscriptions").whereIn("id", ids).where({ claimed_by: holder }).update({ claimed_by: null, claim_expires_ms: 0 });
  }

  /**
   * The next pending notifications of each of the subscriptions (at most `limit` each), in
   * order, with the subscription's current URL and secret: one query for many workers. The
   * events' payload templates are not in it (see `templates`).
   */
  async pendingBatches(subscriptionIds: number[], limit: number): Promise<Map<number, Omit<Deliverable, "template">[]>> {
    const out = new Map<number, Omit<Deliverable, "template">[]>(subscriptionIds.map((id) => [id, []]));
    if (subscriptionIds.length === 0) return out;
    const ranked = this.db("notifications as n")
      .join("subscriptions as s", "s.id", "n.subscription_id")
      .where("n.state", "pending")
      .whereIn("n.subscription_id", subscriptionIds)
      .select("n.*", "s.family", "s.url", "s.secret_sealed", "s.enabled", this.db.raw("row_number() over (partition by n.subscription_id order by n.seq) as rn"));
    const rows: Record<string, unknown>[] = await this.db.select("*").from(ranked.as("x")).where("rn", "<=", limit).orderBy("seq");
    // Each subscription's secret is opened once, however many of its notifications come.
    const secrets = new Map<number, string>();
    for (const r of rows) {
      const id = Number(r.subscription_id);
      const secret = secrets.get(id) ?? this.box.open(String(r.secret_sealed));
      secrets.set(id, secret);
      out.get(id)!.push({ ...notificationRow(r), family: r.family as Family, url: String(r.url), secret, enabled: Boolean(r.enabled) });
    }
    return out;
  }

  /** The payload templates of the events (they never change once written). */
  async templates(eventIds: string[]): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const rows: { event_id: string; template: string }[] = await this.db("event_payloads").whereIn("event_id", eventIds).select("event_id", "template");
    return new Map(rows.map((r) => [r.event_id, r.template]));
  }

  /** Records attempts of many subscriptions in one transaction (the dispatcher's group commit). */
  async recordResults(results: AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    await this.db.transaction(async (trx) => {
      for (let i = 0; i < results.length; i += INSERT_CHUNK) {
        await trx("delivery_attempts").insert(
          results.slice(i, i + INSERT_CHUNK).map((r) => ({
            subscription_id: r.notification.subscription_id,
            notification_id: r.notification.id,
            attempt: r.attempt,
            attempted_at: r.at,
            status_code: r.status ?? null,
            error: r.error?.slice(0, 500) ?? null,
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
      for (const r of results.filter((x) => x.outcome === "delivered")) byAttempt.set(r.attempt, [...(byAttempt.get(r.attempt) ?? []), r]);
      for (const [attempt, group] of byAttempt) {
        await trx("notifications")
          .whereIn(
            "seq",
            group.map((r) => r.notification.seq),
          )
          .where({ state: "pending" })
          .update({ state: "delivered", attempts: attempt, finished_at: group[group.length - 1].at });
      }
    });
  }

  /** Records an attempt that belongs to no notification (a ping or a validation request). */
  async recordPing(subscriptionId: number, at: Date, result: { status?: number; error?: string; latencyMs: number; ok: boolean }): Promise<void> {
    await this.db("delivery_attempts").insert({
      subscription_id: subscriptionId,
      notification_id: null,
      attempt: 1,
      attempted_at: at,
      status_code: result.status ?? null,
      error: result.error?.slice(0, 500) ?? null,
      latency_ms: result.latencyMs,
      outcome: result.ok ? "ping_ok" : "ping_failed",
    });
  }

  // Operating

  async attempts(subscriptionId: number, limit: number, beforeId?: number): Promise<AttemptRow[]> {
    const q = this.db("delivery_attempts").where({ subscription_id: subscriptionId }).orderBy("id", "desc").limit(limit);
    if (beforeId) q.where("id", "<", beforeId);
    return (await q).map(attemptRow);
  }

  async notifications(subscriptionId: number, state: NotificationState | undefined, limit: number): Promise<NotificationRow[]> {
    const q = this.db("notifications").where({ subscription_id: subscriptionId }).orderBy("seq", "desc").limit(limit);
    if (state) q.where({ state });
    return (await q).map(notificationRow);
  }

  async notification(id: string): Promise<NotificationRow | undefined> {
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

  // Retention: each purge removes up to `limit` rows in short statements of their own. The keys are
  // read first (MariaDB refuses LIMIT in an IN subquery, SQLite has no DELETE ... LIMIT), then the
  // delete repeats the condition: rows that changed meanwhile stay, and replicas purging at once
  // remove each row once.

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
