import type { Knex } from "../../../lib/db.js";
import { readIdOrNull } from "../../../lib/ids.js";
import { amountInCents, centsOf, localDaySql, offsetSpans } from "../reporting.js";
import type { ReportContext } from "../reports/context.js";
import { flag, LABOUR_SQL, rateSql, reportEntries, secondsSql, selectAs } from "../reports/filters.js";

/**
 * The one query of every insight: the reports' entries (reports/filters.ts: the range, what the
 * caller sees, the body's filters, rounding, rates and labour costs as the reports compute them),
 * narrowed to one currency, summed in SQL per key (project, client, user ...), local day, hourly
 * rate, labour cost and billable flag. Every selected column is a grouped key or an aggregate, so
 * MySQL's ONLY_FULL_GROUP_BY accepts it as SQLite does.
 */

/** What the sums are grouped by besides the day and rates: an SQL expression per key (aliases te, p of the reports' query). */
export const INSIGHT_KEYS = {
  project: "te.project_id",
  client: "p.client_id",
  user: "te.user_id",
} as const;
export type InsightKey = keyof typeof INSIGHT_KEYS;

export interface InsightSumOptions {
  keys: readonly InsightKey[];
  /** Only time on projects in this currency (a project without its own has the workspace's; so has time without project). */
  currency?: string;
  /** Only time with a value for every key (no "without project" ...). */
  keyed?: boolean;
}

/** One sum: the keys' values (in the order asked), the local day, and the seconds at one rate and labour cost. */
export interface InsightSum {
  keys: (bigint | null)[];
  /** Days since 1970-01-01 on the caller's calendar. */
  day: number;
  seconds: number;
  billable: boolean;
  rateInCents: number;
  labourInCents: number;
}

const alias = (key: InsightKey) => `k_${key}`;

export async function insightSums(db: Knex, ctx: ReportContext, options: InsightSumOptions): Promise<InsightSum[]> {
  const q = reportEntries(db, ctx);
  if (options.currency) q.whereRaw(`COALESCE(p.currency, ?) = ?`, [ctx.currency, options.currency]);
  if (options.keyed) for (const key of options.keys) q.whereNotNull(INSIGHT_KEYS[key]);
  const spans = offsetSpans(ctx.range.from, ctx.range.to, ctx.zone);
  const keys = options.keys.map((key) => selectAs(db, INSIGHT_KEYS[key], alias(key)));
  const rows: Record<string, unknown>[] = await q
    .select(
      ...keys,
      selectAs(db, localDaySql(db, spans), "local_day"),
      selectAs(db, rateSql(ctx), "hourly_rate"),
      selectAs(db, LABOUR_SQL, "labour_rate"),
      selectAs(db, "te.billable", "is_billable"),
      selectAs(db, `SUM(${secondsSql(ctx.rounding)})`, "seconds"),
    )
    .groupBy(...options.keys.map(alias), "local_day", "hourly_rate", "labour_rate", "is_billable");
  return rows.map((raw) => ({
    keys: options.keys.map((key) => readIdOrNull(raw[alias(key)])),
    day: Number(raw.local_day),
    seconds: Number(raw.seconds),
    billable: flag(raw.is_billable),
    rateInCents: centsOf(Number(raw.hourly_rate)),
    labourInCents: centsOf(Number(raw.labour_rate)),
  }));
}

/** Seconds, billable seconds, earnings and labour cost of some sums, the amounts rounded once on the whole. */
export interface Totals {
  totalSeconds: number;
  billableSeconds: number;
  /** Cents: billable seconds at their hourly rates. */
  earnings: number;
  /** Cents: all seconds at their labour costs per hour. */
  labourCost: number;
}

/** Adds sums up: seconds as they come, amounts from the seconds at each rate (as the reports do). */
export class Tally {
  private seconds = 0;
  private billableSeconds = 0;
  private readonly earned: { seconds: number; rateInCents: number }[] = [];
  private readonly labour: { seconds: number; rateInCents: number }[] = [];

  add(sum: InsightSum): void {
    this.seconds += sum.seconds;
    this.labour.push({ seconds: sum.seconds, rateInCents: sum.labourInCents });
    if (sum.billable) {
      this.billableSeconds += sum.seconds;
      this.earned.push({ seconds: sum.seconds, rateInCents: sum.rateInCents });
    }
  }

  totals(): Totals {
    return { totalSeconds: this.seconds, billableSeconds: this.billableSeconds, earnings: amountInCents(this.earned), labourCost: amountInCents(this.labour) };
  }
}
