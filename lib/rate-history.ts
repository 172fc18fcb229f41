import { create } from "@bufbuild/protobuf";
import { RateSchema, type Rate } from "../gen/tracking/v1/rates_pb.js";
import { LeasedWork } from "./background.js";
import type { Clock } from "./clock.js";
import type { Knex } from "./db.js";
import { idBinding } from "./ids.js";
import type { Logger } from "./logger.js";
import type { Column, ScopedTable } from "./scoped-table.js";
import type { Emit, ServiceStorage } from "./storage.js";

/**
 * The history of rates (POST/GET /workspaces/{id}/rates), one rule for every level: the tracking
 * service keeps the rates of projects, project users and tasks, the accounts service those of
 * workspaces and workspace users, each in its own table of these columns (and its own).
 */

export type RateType = "billable_rates" | "labor_costs";

/** What a stored rate of any level has. */
export interface RateHistoryRow {
  id: bigint;
  workspace_id: bigint;
  level: string;
  level_id: bigint;
  type: RateType;
  amount: number;
  start: Date;
  /** When the next rate took over; null while current. */
  end: Date | null;
  rate_change_mode: string | null;
  creator_id: bigint;
  created_at: Date;
  updated_at: Date;
  /** Set when a later rate replaced this one. */
  deleted_at: Date | null;
  /** When the entity's current value followed this rate (it had begun); null while it lies ahead. */
  applied_at: Date | null;
}

/** How the columns every level's table has are read (each table's declaration adds its own). */
export const RATE_HISTORY_COLUMNS: { [K in keyof RateHistoryRow]-?: Column } = {
  id: "id",
  workspace_id: "id",
  level: "string",
  level_id: "id",
  type: "string",
  amount: "number",
  start: "date",
  end: "date?",
  rate_change_mode: "string?",
  creator_id: "id",
  created_at: "date",
  updated_at: "date",
  deleted_at: "date?",
  applied_at: "date?",
};

/** One entity's rates of one type. */
export interface RateKey {
  workspace: bigint;
  level: string;
  levelId: bigint;
  type: RateType;
}

/** The entity and type of a stored rate. */
export const rateKeyOf = (row: Pick<RateHistoryRow, "workspace_id" | "level" | "level_id" | "type">): RateKey => ({ workspace: row.workspace_id, level: row.level, levelId: row.level_id, type: row.type });

/** What a new rate does to the entity's live rates of its type. */
export interface RatePlan {
  /** Live rates the new one replaces (marked deleted). */
  replaced: bigint[];
  /** A live rate the new one ends (its `end` set to the new start). */
  ended?: { id: bigint; end: Date };
  start: Date;
  end: Date | null;
}

type Live = Pick<RateHistoryRow, "id" | "start" | "end">;

const holds = (r: Live, at: Date) => r.start <= at && (r.end === null || r.end > at);

/**
 * Where a new rate goes among the live ones (`live`: not deleted, by start). An explicit start or
 * `start-today` (midnight UTC) begins it then: the rate holding that time ends there (or is
 * replaced when it starts then too), and the new one lasts until the next rate's start.
 * `override-current` replaces the rate that holds now and takes its period (from now when none
 * does); `override-all` replaces every rate and holds from the earliest start on (now when none).
 */
export function planRate(live: readonly Live[], mode: string | null, start: Date | undefined, now: Date): RatePlan {
  if (start === undefined && mode === "override-all") {
    const earliest = live.length ? live[0].start : now;
    return { replaced: live.map((r) => r.id), start: earliest, end: null };
  }
  if (start === undefined && mode === "override-current") {
    const current = live.find((r) => holds(r, now));
    if (current) return { replaced: [current.id], start: current.start, end: current.end };
    start = now;
  }
  const at = start ?? new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const holder = live.find((r) => holds(r, at));
  const next = live.find((r) => r.start > at);
  const plan: RatePlan = { replaced: [], start: at, end: next ? next.start : null };
  if (holder && holder.start.getTime() === at.getTime()) plan.replaced.push(holder.id);
  else if (holder) plan.ended = { id: holder.id, end: at };
  return plan;
}

/** The rate of the live ones that holds now, if any. */
export function currentRate<R extends Live>(live: readonly R[], now: Date): R | undefined {
  return live.find((r) => holds(r, now));
}

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** A rate as the reference's models.Rate shows it; `ids` are the entity's (`workspace_user_id`, `project_id` ...). */
export function rateMessage(row: RateHistoryRow, ids: Pick<Rate, "workspaceUserId" | "projectId" | "projectUserId" | "plannedTaskId">): Rate {
  return create(RateSchema, {
    ...ids,
    id: BigInt(row.id),
    workspaceId: BigInt(row.workspace_id),
    type: row.type,
    amount: row.amount,
    start: rfc3339(row.start),
    end: row.end ? rfc3339(row.end) : undefined,
    rateChangeMode: row.rate_change_mode ?? undefined,
    creatorId: BigInt(row.creator_id),
    createdAt: rfc3339(row.created_at),
    updatedAt: rfc3339(row.updated_at),
    deletedAt: row.deleted_at ? rfc3339(row.deleted_at) : undefined,
  });
}

/** The columns of a new rate beyond the history's own: the entity's, its type, amount, mode and creator. */
export type NewRate<Row extends RateHistoryRow> = Omit<Row, "id" | "start" | "end" | "created_at" | "updated_at" | "deleted_at" | "applied_at">;

/** A table of rates: the queries every level's history runs. */
export class RateHistory<Row extends RateHistoryRow> {
  constructor(readonly table: ScopedTable<Row>) {}

  private of(q: Knex, key: RateKey): Knex.QueryBuilder {
    return this.table.query(q, key.workspace).where({ level: key.level, level_id: key.levelId, type: key.type });
  }

  private async read(query: Knex.QueryBuilder): Promise<Row[]> {
    return (await query.orderBy("start").orderBy("id")).map((raw: Record<string, unknown>) => this.table.read(raw));
  }

  /** The entity's rates of the type, oldest start first, replaced ones included. */
  all(q: Knex, key: RateKey): Promise<Row[]> {
    return this.read(this.of(q, key));
  }

  /** The entity's live (not replaced) rates of the type, by start, locked for the change. */
  live(trx: Knex.Transaction, key: RateKey): Promise<Row[]> {
    return this.read(this.of(trx, key).whereNull("deleted_at").forUpdate());
  }

  /** Records a new rate where `planRate` puts it among the entity's live ones (they end or are replaced). */
  async add(trx: Knex.Transaction, rate: NewRate<Row>, start: Date | undefined, now: Date): Promise<void> {
    const key = rateKeyOf(rate);
    const plan = planRate(await this.live(trx, key), rate.rate_change_mode, start, now);
    const mine = () => this.table.query(trx, key.workspace);
    if (plan.replaced.length) await mine().whereIn("id", plan.replaced.map(idBinding)).update({ deleted_at: now, updated_at: now });
    if (plan.ended) await mine().where("id", idBinding(plan.ended.id)).update({ end: plan.ended.end, updated_at: now });
    // applied_at is set by `begin` once the rate has begun (now, or later by the rates scheduler).
    await this.table.insert(trx, { ...rate, start: plan.start, end: plan.end, created_at: now, updated_at: now, deleted_at: null, applied_at: null } as Omit<Row, "id">);
  }

  /**
   * Marks every live rate of the entity that has begun as applied (the scheduler leaves it
   * alone) and answers the one that holds now: the entity's current value follows it.
   */
  async begin(trx: Knex.Transaction, key: RateKey, now: Date): Promise<Row | undefined> {
    const live = await this.live(trx, key);
    const begun = live.filter((r) => r.start <= now && r.applied_at === null).map((r) => r.id);
    if (begun.length) await this.table.query(trx, key.workspace).whereIn("id", begun.map(idBinding)).update({ applied_at: now });
    return currentRate(live, now);
  }

  /** Live rates that have begun and were not applied yet, by start. */
  async due(db: Knex, now: Date, limit: number): Promise<Row[]> {
    return (await db(this.table.table).whereNull("applied_at").whereNull("deleted_at").where("start", "<=", now).orderBy("start").orderBy("id").limit(limit))
      .map((raw: Record<string, unknown>) => this.table.read(raw));
  }
}

/** Rates applied per query; a pass goes on until none is due. */
const BATCH = 100;

export interface RateSchedulerOptions {
  /** Milliseconds between passes (a rate begins at a time given to the second; a minute late is timely enough). */
  pollMs?: number;
  leaseMs?: number;
}

/**
 * Makes a rate that begins later (an explicit start ahead, `start-today` before midnight) its
 * entity's current value when it begins, one replica at a time (it holds the lease named after
 * the table). Each rate is applied in one change (`apply`, which calls `RateHistory.begin`) that
 * marks it applied, so a restart between passes neither loses nor repeats one.
 */
export abstract class RateScheduler<Row extends RateHistoryRow> extends LeasedWork {
  constructor(
    private readonly storage: ServiceStorage,
    private readonly history: RateHistory<Row>,
    private readonly clock: Clock,
    log: Logger,
    options: RateSchedulerOptions = {},
  ) {
    super(storage.db, history.table.table, clock, log, { pollMs: options.pollMs ?? 60_000, leaseMs: options.leaseMs ?? 5 * 60_000 });
  }

  /** The rate's entity follows the rate that holds now (the rate's creator is the change's actor). */
  protected abstract apply(trx: Knex.Transaction, emit: Emit, rate: Row, now: Date): Promise<void>;

  protected async pass(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const due = await this.history.due(this.storage.db, now, BATCH);
      for (const rate of due) await this.storage.change((trx, emit) => this.apply(trx, emit, rate, now));
      if (due.length < BATCH || !(await this.stillHeld())) return;
    }
  }
}
