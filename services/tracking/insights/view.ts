import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  GetClientDataTrendsResponseSchema,
  GetComparativeReportResponseSchema,
  GetProjectDataTrendsResponseSchema,
  GetProjectProfitabilityResponseSchema,
  GetProjectTrendsResponseSchema,
  GetUserDataTrendsResponseSchema,
} from "../../../gen/tracking/v1/insights_pb.js";
import type { ReportContext } from "../reports/context.js";
import { dayText } from "../reports/rules.js";
import type { TrendMember } from "./data-trends.js";
import type { ProjectsProfitability } from "./profitability.js";
import type { ProjectTrend } from "./project-trends.js";
import type { Periods } from "./rules.js";
import type { Totals } from "./store.js";

/** The insights' plain rows as the API answers them: the JSON shapes of docs/reports.md ("Insights"). */

export function comparativeResponse(periods: Periods, seconds: number[]): MessageInitShape<typeof GetComparativeReportResponseSchema> {
  return { graph: { resolution: periods.resolution, data: seconds.map((s, i) => ({ date: periods.dates[i], totalSeconds: BigInt(s) })) } };
}

/** One member's figures of a period; earnings only for callers who see amounts. */
const figures = (ctx: ReportContext, t: Totals) => ({
  totalSeconds: BigInt(t.totalSeconds),
  billableSeconds: BigInt(t.billableSeconds),
  earnings: ctx.amounts ? BigInt(t.earnings) : undefined,
});

/** A data trend's points: each period's date and every member's figures there. */
function trendPoints<T>(periods: Periods, members: TrendMember[], member: (m: TrendMember, t: Totals) => T) {
  return periods.dates.map((date, i) => ({ date, members: members.map((m) => member(m, m.points[i])) }));
}

export function clientTrendsResponse(ctx: ReportContext, currency: string, periods: Periods, members: TrendMember[]): MessageInitShape<typeof GetClientDataTrendsResponseSchema> {
  const data = trendPoints(periods, members, (m, t) => ({ clientId: m.id, name: m.name, ...figures(ctx, t) }));
  return { currency, graph: { resolution: periods.resolution, data: data.map((p) => ({ date: p.date, clients: p.members })) } };
}

export function projectTrendsResponse(ctx: ReportContext, currency: string, periods: Periods, members: TrendMember[]): MessageInitShape<typeof GetProjectDataTrendsResponseSchema> {
  const data = trendPoints(periods, members, (m, t) => ({ projectId: m.id, name: m.name, color: m.color, currency: m.currency, ...figures(ctx, t) }));
  return { currency, graph: { resolution: periods.resolution, data: data.map((p) => ({ date: p.date, projects: p.members })) } };
}

export function userTrendsResponse(ctx: ReportContext, currency: string, periods: Periods, members: TrendMember[]): MessageInitShape<typeof GetUserDataTrendsResponseSchema> {
  const data = trendPoints(periods, members, (m, t) => ({ userId: m.id, name: m.name, ...figures(ctx, t) }));
  return { currency, graph: { resolution: periods.resolution, data: data.map((p) => ({ date: p.date, users: p.members })) } };
}

export function profitabilityResponse(currency: string, periods: Periods, report: ProjectsProfitability): MessageInitShape<typeof GetProjectProfitabilityResponseSchema> {
  return {
    currency,
    graph: { resolution: periods.resolution, data: report.graph.map((t, i) => ({ date: periods.dates[i], earnings: BigInt(t.earnings), labourCost: BigInt(t.labourCost) })) },
    table: report.table.map((p) => ({
      projectId: p.projectId,
      name: p.name,
      color: p.color,
      currency: p.currency,
      totalSeconds: BigInt(p.totalSeconds),
      billableSeconds: BigInt(p.billableSeconds),
      earnings: BigInt(p.earnings),
      labourCost: BigInt(p.labourCost),
    })),
  };
}

export function projectTrendRowsResponse(ctx: ReportContext, previousFirst: string, trends: ProjectTrend[]): MessageInitShape<typeof GetProjectTrendsResponseSchema> {
  const [start, end] = [dayText(ctx.range.first), dayText(ctx.range.last)];
  return {
    projects: trends.map((t) => ({
      projectId: t.projectId,
      start,
      end,
      previousStart: previousFirst,
      currentPeriodSeconds: t.current.map(BigInt),
      previousPeriodSeconds: t.previous.map(BigInt),
      userIds: t.userIds,
    })),
  };
}
