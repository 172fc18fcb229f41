import type { Knex } from "../../../lib/db.js";
import { amountInCents, buckets, centsOf, offsetSpans, resolutionOf, type Resolution } from "../reporting.js";
import type { ReportContext } from "./context.js";
import { selectAs, flag, LABOUR_SQL, rateSql, reportEntries, secondsSql } from "./filters.js";
import { localDaySql } from "../reporting.js";
import type { RateSeconds } from "./summary.js";

/**
 * The detailed report's totals: its seconds, the days with tracked time, billable seconds and
 * amounts by rate, labour costs, and (with the graph) the same per period. Summed in SQL per local
 * day, rate, labour cost and billable flag; the days become periods here.
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

export async function detailedTotals(db: Knex, ctx: ReportContext, resolution: Resolution | undefined): Promise<Totals> {
  const spans = offsetSpans(ctx.range.from, ctx.range.to, ctx.zone);
  const sums: Record<string, unknown>[] = await reportEntries(db, ctx)
    .select(selectAs(db, localDaySql(db, spans), "local_day"), selectAs(db, rateSql(ctx), "hourly_rate"), selectAs(db, LABOUR_SQL, "labour_rate"), selectAs(db, "te.billable", "is_billable"), selectAs(db, `SUM(${secondsSql(ctx.rounding)})`, "seconds"))
    .groupBy("local_day", "hourly_rate", "labour_rate", "is_billable");
  const chosen = resolution ?? resolutionOf(ctx.range);
  const periods = buckets(ctx.range, chosen, ctx.weekStart);
  const graph = Array.from({ length: periods.count }, emptyPoint);
  const total = emptyPoint();
  const days = new Set<number>();
  for (const raw of sums) {
    const day = Number(raw.local_day);
    const seconds = Number(raw.seconds);
    const point = graph[Math.min(Math.max(periods.indexOf(day), 0), graph.length - 1)];
    if (seconds > 0) days.add(day);
    const labour = { seconds, rateInCents: centsOf(Number(raw.labour_rate)) };
    for (const p of [point, total]) {
      p.seconds += seconds;
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
    trackedDays: days.size,
    rates: [...total.byRate].sort(([a], [b]) => a - b).map(([hourlyRateInCents, billableSeconds]) => ({ hourlyRateInCents, billableSeconds })),
    resolution: chosen,
    graph: graph.map(({ labour: _, ...point }) => point),
  };
}
