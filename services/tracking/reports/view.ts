import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ListValueSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  DetailedReportRowSchema,
  GetDetailedReportTotalsResponseSchema,
  GetSummaryReportResponseSchema,
  GetWeeklyReportResponseSchema,
  SearchDetailedReportResponseSchema,
  type DetailedReportRow,
  type GetDetailedReportTotalsResponse,
  type GetSummaryReportResponse,
  type GetWeeklyReportResponse,
  type SearchDetailedReportResponse,
} from "../../../gen/tracking/v1/reports_pb.js";
import type { ReportContext } from "./context.js";
import type { DetailedPage, DetailedRow } from "./detailed.js";
import { dayText, localTimeText } from "./rules.js";
import type { RateSeconds, SummaryGroup } from "./summary.js";
import type { Totals } from "./totals.js";
import type { WeeklyRow } from "./weekly.js";

/** The reports' plain rows as the API answers them: the JSON shapes of docs/reports.md. */

const NONE = { case: undefined } as const;
const list = (values: JsonValue[]) => fromJson(ListValueSchema, values);
const optionalId = (id: bigint | null) => id ?? undefined;
/** Ids in a list value: JSON numbers, as the answers have always written them. */
const listOfIds = (ids: bigint[]) => list(ids.map(Number));
const range = (ctx: ReportContext) => ({ rangeStart: dayText(ctx.range.first), rangeEnd: dayText(ctx.range.last) });

/** Billable seconds by rate (the reference's base.BillableHourlyRate), when the caller sees amounts. */
function ratesList(ctx: ReportContext, rates: RateSeconds[]) {
  if (!ctx.amounts) return undefined;
  return list(rates.map((r) => ({ billable_seconds: r.billableSeconds, currency: ctx.currency, hourly_rate_in_cents: r.hourlyRateInCents })));
}

export function summaryResponse(ctx: ReportContext, grouping: string, subGrouping: string, groups: SummaryGroup[]): GetSummaryReportResponse {
  return create(GetSummaryReportResponseSchema, {
    groups: groups.map((g) => ({
      id: optionalId(g.id),
      idsSet: g.tagIds ? { case: "ids" as const, value: listOfIds(g.tagIds) } : NONE,
      subGroups: g.subGroups.map((s) => ({
        id: optionalId(s.id),
        title: s.title ?? undefined,
        seconds: BigInt(s.seconds),
        ids: s.ids ? listOfIds(s.ids) : undefined,
        rates: ratesList(ctx, s.rates),
      })),
    })),
    grouping,
    subGrouping,
    ...range(ctx),
  });
}

function detailedRowMessage(ctx: ReportContext, row: DetailedRow, enrich: boolean): DetailedReportRow {
  const value = (v: string | null) => fromJson(ValueSchema, v);
  const n = row.names;
  return create(DetailedReportRowSchema, {
    userId: row.userId,
    username: n.username,
    projectId: optionalId(row.projectId),
    taskId: optionalId(row.taskId),
    billable: row.billable,
    description: row.description,
    tagIds: row.tagIds,
    billableAmountInCents: ctx.amounts ? BigInt(row.amountInCents) : undefined,
    hourlyRateInCents: ctx.amounts ? BigInt(row.hourlyRateInCents) : undefined,
    currency: ctx.currency,
    timeEntries: row.entries.map((e) => ({
      id: e.id,
      seconds: BigInt(e.seconds),
      start: localTimeText(e.start, ctx.zone),
      stop: localTimeText(e.stop, ctx.zone),
      at: localTimeText(e.at, "UTC"),
      atTz: localTimeText(e.at, ctx.zone),
    })),
    rowNumber: BigInt(row.rowNumber),
    emailSet: enrich ? { case: "email", value: n.email } : NONE,
    projectNameSet: enrich ? { case: "projectName", value: value(n.projectName) } : NONE,
    projectColorSet: enrich ? { case: "projectColor", value: value(n.projectColor) } : NONE,
    projectHexSet: enrich ? { case: "projectHex", value: value(n.projectColor) } : NONE,
    clientNameSet: enrich ? { case: "clientName", value: value(n.clientName) } : NONE,
    taskNameSet: enrich ? { case: "taskName", value: value(n.taskName) } : NONE,
    tagNamesSet: enrich ? { case: "tagNames", value: list(n.tagNames) } : NONE,
  });
}

export function detailedResponse(ctx: ReportContext, page: DetailedPage, enrich: boolean): SearchDetailedReportResponse {
  return create(SearchDetailedReportResponseSchema, {
    rows: page.rows.map((r) => detailedRowMessage(ctx, r, enrich)),
    nextId: page.next?.id,
    nextRowNumber: page.next ? BigInt(page.next.rowNumber) : undefined,
    nextTimestamp: page.next ? BigInt(page.next.timestamp) : undefined,
    ...range(ctx),
  });
}

export function totalsResponse(ctx: ReportContext, totals: Totals, withGraph: boolean): GetDetailedReportTotalsResponse {
  const amount = (cents: number) => (ctx.amounts ? cents : null);
  const labour = (cents: number) => (ctx.labour ? cents : null);
  return create(GetDetailedReportTotalsResponseSchema, {
    seconds: BigInt(totals.seconds),
    trackedDays: BigInt(totals.trackedDays),
    billableAmountInCents: ctx.amounts ? BigInt(totals.amountInCents) : undefined,
    labourCostInCents: ctx.labour ? BigInt(totals.labourCostInCents) : undefined,
    rates: ratesList(ctx, totals.rates),
    resolution: totals.resolution,
    graph: withGraph
      ? list(
          totals.graph.map((p) => ({
            seconds: p.seconds,
            billable_amount_in_cents: amount(p.amountInCents),
            labour_cost_in_cents: labour(p.labourCostInCents),
            by_rate: ctx.amounts ? Object.fromEntries([...p.byRate].sort(([a], [b]) => a - b).map(([cents, seconds]) => [String(cents), seconds])) : null,
          })),
        )
      : undefined,
    ...range(ctx),
  });
}

export function weeklyResponse(ctx: ReportContext, rows: WeeklyRow[]): GetWeeklyReportResponse {
  return create(GetWeeklyReportResponseSchema, {
    rows: rows.map((r) => ({
      userId: r.userId,
      userName: r.userName,
      projectId: optionalId(r.projectId),
      projectName: r.projectName ?? undefined,
      clientName: r.clientName ?? undefined,
      projectColor: r.projectColor ?? undefined,
      projectHexColor: r.projectColor ?? undefined,
      seconds: r.seconds.map(BigInt),
      billableSeconds: r.billableSeconds.map(BigInt),
      billableAmountsInCents: ctx.amounts ? list(r.amountsInCents) : undefined,
      hourlyRateInCents: ctx.amounts ? BigInt(r.hourlyRateInCents) : undefined,
      currency: ctx.currency,
    })),
    ...range(ctx),
  });
}
