import { isMysql, type Knex } from "../../../lib/db.js";
import { amountInCents, buckets, centsOf, dayNumber, dayOfNumber, localDaySql, offsetSpans, resolutionOf, type Buckets, type OffsetSpan, type Resolution, type Sql } from "../reporting.js";
import type { ReportContext } from "./context.js";
import { selectAs, flag, LABOUR_SQL, rateSql, reportEntries, secondsSql, summedEntries } from "./filters.js";
import { instantAt } from "./rules.js";
import type { RateSeconds } from "./summary.js";

/**
 * The detailed report's totals: its seconds, the days with tracked time, billable seconds and
 * amounts by rate, labour costs, and (with the graph) the same per period: summed in SQL per local
 * day, and per period, rate, labour cost and billable flag (`totalsSums`); the days and periods
 * become the graph's points here.
 */

export interface TotalsPoint {
  seconds: number;
  amountInCents: number;
  labourCostInCents: number;
  /** Billable seconds by hourly rate in cents. */
  byRate: Map<number, number>;
}

export interface Totals extends Omit<TotalsPoint, "byRate"> {
  trackedDays: number;
  rates: RateSeconds[];
  resolution: Resolution;
  /** One point per period of the resolution, from the range's first day. */
  graph: TotalsPoint[];
}

type Part = { seconds: number; rateInCents: number };
const emptyPoint = (): TotalsPoint & { labour: Part[] } => ({ seconds: 0, amountInCents: 0, labourCostInCents: 0, byRate: new Map(), labour: [] });

/**
 * SQL for the index of the graph bucket an entry (aliased te, in the range) falls in: its local day
 * from the first for days; for weeks and months, by the instants the later buckets begin at (the
 * range's days where the bucket changes; a few comparisons of the start instead of the local day's
 * arithmetic).
 */
function bucketSql(db: Knex, ctx: ReportContext, spans: OffsetSpan[], periods: Buckets, resolution: Resolution): Sql {
  const first = dayNumber(ctx.range.first);
  if (resolution === "day") {
    const day = localDaySql(db, spans);
    return { sql: `(${day.sql}) - ${first}`, bindings: day.bindings };
  }
  const starts: Date[] = [];
  for (let day = first + 1; day <= dayNumber(ctx.range.last); day++) {
    if (periods.indexOf(day) !== periods.indexOf(day - 1)) starts.push(instantAt(dayOfNumber(day), 0, ctx.zone));
  }
  const cases = starts.map((_, i) => `WHEN te.start < ? THEN ${i}`);
  return starts.length ? { sql: `CASE ${cases.join(" ")} ELSE ${starts.length} END`, bindings: starts } : { sql: "0", bindings: [] };
}

/** Seconds of one bucket at one rate, labour cost and billable flag. */
interface BucketSum {
  bucket: number;
  hourlyRate: number;
  labourRate: number;
  billable: boolean;
  seconds: number;
}

/** What the totals are made from: the seconds per local day, and per bucket, rate, labour cost and billable flag. */
interface TotalsSums {
  days: Map<number, number>;
  sums: BucketSum[];
}

const bucketSum = (raw: Record<string, unknown>, bucket: number): BucketSum => ({
  bucket,
  hourlyRate: Number(raw.hourly_rate),
  labourRate: Number(raw.labour_rate),
  billable: flag(raw.is_billable),
  seconds: Number(raw.seconds),
});

/**
 * The sums, by the query each engine runs fastest (a year of 100,000 entries, measured): SQLite in
 * one pass, each entry joined and grouped by local day, rate, labour cost and billable flag (its
 * joins are cheap in-process lookups, its groupings are not: two passes took 111 ms where one took
 * 89); MySQL/MariaDB in two, the seconds per local day from the entries alone, and the entries
 * summed per bucket and what a rate depends on before the joins (a year by months: about 12,000
 * sums to join where joining each entry took most of the 362 ms).
 */
async function totalsSums(db: Knex, ctx: ReportContext, periods: Buckets, resolution: Resolution): Promise<TotalsSums> {
  const spans = offsetSpans(ctx.range.from, ctx.range.to, ctx.zone);
  const day = selectAs(db, localDaySql(db, spans), "local_day");
  const seconds = selectAs(db, `SUM(${secondsSql(ctx.rounding)})`, "seconds");
  const rated = [selectAs(db, rateSql(ctx), "hourly_rate"), selectAs(db, LABOUR_SQL, "labour_rate"), selectAs(db, "te.billable", "is_billable")];
  const days = new Map<number, number>();
  if (!isMysql(db)) {
    const rows: Record<string, unknown>[] = await reportEntries(db, ctx).select(day, ...rated, seconds).groupBy("local_day", "hourly_rate", "labour_rate", "is_billable");
    for (const raw of rows) days.set(Number(raw.local_day), (days.get(Number(raw.local_day)) ?? 0) + Number(raw.seconds));
    return { days, sums: rows.map((raw) => bucketSum(raw, periods.indexOf(Number(raw.local_day)))) };
  }
  const [perDay, perBucket]: Record<string, unknown>[][] = await Promise.all([
    reportEntries(db, ctx, { joined: false }).select(day, seconds).groupBy("local_day"),
    summedEntries(db, ctx, [], { bucket: bucketSql(db, ctx, spans, periods, resolution) })
      .select("te.bucket", ...rated, selectAs(db, "SUM(te.seconds)", "seconds"))
      .groupBy("te.bucket", "hourly_rate", "labour_rate", "is_billable"),
  ]);
  for (const raw of perDay) days.set(Number(raw.local_day), Number(raw.seconds));
  return { days, sums: perBucket.map((raw) => bucketSum(raw, Number(raw.bucket))) };
}

export async function detailedTotals(db: Knex, ctx: ReportContext, resolution: Resolution | undefined): Promise<Totals> {
  const chosen = resolution ?? resolutionOf(ctx.range);
  const periods = buckets(ctx.range, chosen, ctx.weekStart);
  const { days, sums } = await totalsSums(db, ctx, periods, chosen);
  const graph = Array.from({ length: periods.count }, emptyPoint);
  const total = emptyPoint();
  const at = (index: number) => graph[Math.min(Math.max(index, 0), graph.length - 1)];
  let trackedDays = 0;
  for (const [day, seconds] of days) {
    if (seconds > 0) trackedDays++;
    at(periods.indexOf(day)).seconds += seconds;
    total.seconds += seconds;
  }
  for (const sum of sums) {
    const labour = { seconds: sum.seconds, rateInCents: centsOf(sum.labourRate) };
    for (const p of [at(sum.bucket), total]) {
      p.labour.push(labour);
      if (sum.billable) {
        const cents = centsOf(sum.hourlyRate);
        p.byRate.set(cents, (p.byRate.get(cents) ?? 0) + sum.seconds);
      }
    }
  }
  // Amounts from the seconds at each rate, so that they are what the rates say.
  for (const p of [...graph, total]) {
    p.amountInCents = amountInCents([...p.byRate].map(([rateInCents, seconds]) => ({ seconds, rateInCents })));
    p.labourCostInCents = amountInCents(p.labour);
  }
  return {
    seconds: total.seconds,
    amountInCents: total.amountInCents,
    labourCostInCents: total.labourCostInCents,
    trackedDays,
    rates: [...total.byRate].sort(([a], [b]) => a - b).map(([hourlyRateInCents, billableSeconds]) => ({ hourlyRateInCents, billableSeconds })),
    resolution: chosen,
    graph: graph.map(({ labour: _, ...point }) => point),
  };
}
