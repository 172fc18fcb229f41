import type { Knex } from "../../../lib/db.js";
import { amountInCents, buckets, centsOf, dayNumber, localDaySql, offsetSpans, resolutionOf, type Buckets, type OffsetSpan, type Resolution, type Sql } from "../reporting.js";
import type { ReportContext } from "./context.js";
import { selectAs, flag, LABOUR_SQL, rateSql, reportEntries, secondsSql, summedEntries } from "./filters.js";
import { instantAt } from "./rules.js";
import type { RateSeconds } from "./summary.js";

/**
 * The detailed report's totals: its seconds, the days with tracked time, billable seconds and
 * amounts by rate, labour costs, and (with the graph) the same per period. Summed in SQL twice: the
 * seconds per local day (no joins), and the seconds per period, rate, labour cost and billable flag
 * (summed per period and what a rate depends on before the joins: a year's 100,000 entries become
 * about 12,000 sums to join, where joining each entry took most of the time on MariaDB).
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
 * from the first for days; for weeks and months, by the instants the later buckets begin at (a few
 * comparisons of the start instead of the local day's arithmetic).
 */
function bucketSql(db: Knex, ctx: ReportContext, spans: OffsetSpan[], periods: Buckets, resolution: Resolution): Sql {
  if (resolution === "day") {
    const day = localDaySql(db, spans);
    return { sql: `(${day.sql}) - ${dayNumber(ctx.range.first)}`, bindings: day.bindings };
  }
  if (periods.starts.length === 0) return { sql: "0", bindings: [] };
  const cases = periods.starts.map((_, i) => `WHEN te.start < ? THEN ${i}`);
  return { sql: `CASE ${cases.join(" ")} ELSE ${periods.starts.length} END`, bindings: periods.starts.map((day) => instantAt(day, 0, ctx.zone)) };
}

export async function detailedTotals(db: Knex, ctx: ReportContext, resolution: Resolution | undefined): Promise<Totals> {
  const spans = offsetSpans(ctx.range.from, ctx.range.to, ctx.zone);
  const chosen = resolution ?? resolutionOf(ctx.range);
  const periods = buckets(ctx.range, chosen, ctx.weekStart);
  const [days, sums]: Record<string, unknown>[][] = await Promise.all([
    // Seconds per local day, from the entries alone.
    reportEntries(db, ctx, { joined: false })
      .select(selectAs(db, localDaySql(db, spans), "local_day"), selectAs(db, `SUM(${secondsSql(ctx.rounding)})`, "seconds"))
      .groupBy("local_day"),
    // Seconds per bucket, rate, labour cost and billable flag: the joins once per sum, not per entry.
    summedEntries(db, ctx, [], { bucket: bucketSql(db, ctx, spans, periods, chosen) })
      .select("te.bucket", selectAs(db, rateSql(ctx), "hourly_rate"), selectAs(db, LABOUR_SQL, "labour_rate"), selectAs(db, "te.billable", "is_billable"), selectAs(db, "SUM(te.seconds)", "seconds"))
      .groupBy("te.bucket", "hourly_rate", "labour_rate", "is_billable"),
  ]);
  const graph = Array.from({ length: periods.count }, emptyPoint);
  const total = emptyPoint();
  const at = (index: number) => graph[Math.min(Math.max(index, 0), graph.length - 1)];
  let trackedDays = 0;
  for (const raw of days) {
    const seconds = Number(raw.seconds);
    if (seconds > 0) trackedDays++;
    at(periods.indexOf(Number(raw.local_day))).seconds += seconds;
    total.seconds += seconds;
  }
  for (const raw of sums) {
    const seconds = Number(raw.seconds);
    const labour = { seconds, rateInCents: centsOf(Number(raw.labour_rate)) };
    for (const p of [at(Number(raw.bucket)), total]) {
      p.labour.push(labour);
      if (flag(raw.is_billable)) {
        const cents = centsOf(Number(raw.hourly_rate));
        p.byRate.set(cents, (p.byRate.get(cents) ?? 0) + seconds);
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
