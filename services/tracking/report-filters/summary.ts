import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetProjectSummaryResponseSchema } from "../../../gen/tracking/v1/report_filters_pb.js";
import { amountInCents, buckets, centsOf, resolutionOf, type ReportRange } from "../reporting.js";
import type { RatedSeconds } from "./store.js";

/** One local day's seconds of a project at one rate and labour cost (as `projectSecondsByDay` answers them). */
export type DaySeconds = RatedSeconds & { day: number };

/** What the caller may see of money: rates and amounts (`visibleRates`), labour costs. */
export interface MoneyShown {
  rate: boolean;
  labourCost: boolean;
}

/** Seconds at rates, gathered for one graph point or the whole range. */
class Tally {
  seconds = 0;
  private readonly billable: { seconds: number; rateInCents: number }[] = [];
  private readonly labour: { seconds: number; rateInCents: number }[] = [];
  readonly byRate = new Map<number, number>();

  add(row: DaySeconds): void {
    this.seconds += row.seconds;
    const rateInCents = centsOf(row.rate);
    if (row.billableSeconds > 0) {
      this.billable.push({ seconds: row.billableSeconds, rateInCents });
      this.byRate.set(rateInCents, (this.byRate.get(rateInCents) ?? 0) + row.billableSeconds);
    }
    this.labour.push({ seconds: row.seconds, rateInCents: centsOf(row.labour) });
  }

  money(shown: MoneyShown) {
    return {
      billableAmountInCents: shown.rate ? BigInt(amountInCents(this.billable)) : undefined,
      labourCostInCents: shown.labourCost ? BigInt(amountInCents(this.labour)) : undefined,
    };
  }
}

/**
 * A project's summary over the range from its seconds per local day: totals, the days with time,
 * the billable time per hourly rate, and one graph point per day, week or month (every bucket of
 * the range, empty ones too). Amounts and rates only where the caller may see them.
 */
export function projectSummary(rows: readonly DaySeconds[], range: ReportRange, weekStart: number, currency: string, shown: MoneyShown): MessageInitShape<typeof GetProjectSummaryResponseSchema> {
  const resolution = resolutionOf(range);
  const { count, indexOf } = buckets(range, resolution, weekStart);
  const points = Array.from({ length: count }, () => new Tally());
  const total = new Tally();
  const days = new Set<number>();
  for (const row of rows) {
    const point = points[indexOf(row.day)];
    if (!point) continue;
    point.add(row);
    total.add(row);
    if (row.seconds > 0) days.add(row.day);
  }
  const byRate = (tally: Tally) => (shown.rate ? Object.fromEntries([...tally.byRate].map(([rate, seconds]) => [String(rate), BigInt(seconds)])) : {});
  return {
    seconds: BigInt(total.seconds),
    trackedDays: BigInt(days.size),
    ...total.money(shown),
    rates: shown.rate
      ? [...total.byRate].sort(([a], [b]) => a - b).map(([rate, seconds]) => ({ billableSeconds: BigInt(seconds), currency, hourlyRateInCents: BigInt(rate) }))
      : [],
    resolution,
    graph: points.map((point) => ({ seconds: BigInt(point.seconds), ...point.money(shown), byRate: byRate(point) })),
  };
}
