import type { Client } from "@connectrpc/connect";
import type { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import type { GetSummaryReportRequest, GetWeeklyReportRequest, SearchDetailedReportRequest } from "../../../gen/tracking/v1/reports_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { TrackingScope } from "../scope.js";
import { knownZone } from "../time-entries/rules.js";
import { reportContext, type ReportContext } from "./context.js";
import { detailedPage, type DetailedPage } from "./detailed.js";
import { detailedOrder, pageStart, reportRange, summaryGrouping, type DetailedOrder, type Dimension } from "./rules.js";
import { summaryAudit, summaryGroups, type SummaryGroup } from "./summary.js";
import { detailedTotals, type Totals } from "./totals.js";
import { weeklyRows, type WeeklyRow } from "./weekly.js";

/**
 * A report run for its files and mails rather than its JSON answer: the summary's groups, the
 * detailed report's first page and the way to read every row, or the weekly rows, with the totals
 * of the same entries. The workspace's exports, a saved report's run and the scheduled mails all
 * come from here.
 */

/** The days a run spans instead of the saved ones, in a zone of its own: a scheduled mail's period in its recipient's zone. */
export interface RunPeriod {
  firstDay: string;
  lastDay: string;
  zone: string;
  /** The recipient's first day of the week (0 Sunday to 6 Saturday). */
  weekStart: number;
}

/** A report's results without its totals: its kind's rows (what a CSV file prints). */
export interface ReportRows {
  kind: ReportRequest["kind"];
  ctx: ReportContext;
  summary?: { grouping: Dimension; subGrouping: Dimension; groups: SummaryGroup[] };
  /** A page of it (the JSON answer); `grouped` and `order` read every row (files). */
  detailed?: { page: DetailedPage; enrich: boolean; grouped: boolean; order: DetailedOrder };
  weekly?: WeeklyRow[];
}

/** A report's results: its kind's rows, and the totals of the same entries. */
export interface ReportRun extends ReportRows {
  totals: Totals;
}

/** The request of one kind of report, as its endpoint reads it. */
export type ReportRequest =
  | { kind: "summary"; req: GetSummaryReportRequest }
  | { kind: "detailed"; req: SearchDetailedReportRequest }
  | { kind: "weekly"; req: GetWeeklyReportRequest };

/** A context with the run's period in its recipient's zone in place of the owner's. */
function inPeriod(ctx: ReportContext, input: Parameters<typeof reportRange>[0], period: RunPeriod | undefined, weekly: boolean): ReportContext {
  if (!period) return ctx;
  const zone = knownZone(period.zone);
  return { ...ctx, zone, weekStart: period.weekStart, range: reportRange(input, zone, weekly) };
}

/** A way to run a report: with its totals (`runReport`) or without (`runRows`, what a CSV file prints). */
export type ReportRunner<R extends ReportRows> = (db: Knex, identity: Client<typeof IdentityService>, scope: TrackingScope, request: ReportRequest, period?: RunPeriod) => Promise<R>;

/**
 * Runs a report as `scope` sees the workspace, over the request's days or, given, a period in a
 * zone of its own, with the totals of its entries (a PDF's totals line and chart, an XLSX's totals
 * row, a saved report's answer, a mail's lines). Calls the accounts service (the workspace's
 * members): never inside a transaction.
 */
export async function runReport(db: Knex, identity: Client<typeof IdentityService>, scope: TrackingScope, request: ReportRequest, period?: RunPeriod): Promise<ReportRun> {
  const rows = await runRows(db, identity, scope, request, period);
  return { ...rows, totals: await detailedTotals(db, rows.ctx, undefined) };
}

/**
 * Runs a report without its totals: what a CSV file prints (a year's totals were a query of their
 * own that no CSV line showed). As `runReport` otherwise.
 */
export async function runRows(db: Knex, identity: Client<typeof IdentityService>, scope: TrackingScope, request: ReportRequest, period?: RunPeriod): Promise<ReportRows> {
  switch (request.kind) {
    case "summary": {
      const req = request.req;
      const { grouping, subGrouping } = summaryGrouping(req.grouping, req.subGrouping);
      const audit = summaryAudit(scope, req.audit);
      const ctx = inPeriod(await reportContext(identity, scope, req, { extraGiven: [req.grouping, req.subGrouping, req.audit] }), req, period, false);
      const groups = await summaryGroups(db, ctx, { grouping, subGrouping, distinguishRates: req.distinguishRates, includeIds: req.includeTimeEntryIds, collapse: req.collapse, audit });
      return { kind: request.kind, ctx, summary: { grouping, subGrouping, groups } };
    }
    case "detailed": {
      const req = request.req;
      const order = detailedOrder(req.orderBy, req.orderDir);
      const page = pageStart(req, order);
      const base = await reportContext(identity, scope, req, {
        hideAmounts: req.hideAmounts,
        extraGiven: [req.orderBy, req.orderDir, req.pageSize, req.firstId, req.firstRowNumber, req.firstTimestamp],
      });
      const ctx = inPeriod(base, req, period, false);
      const found = await detailedPage(db, ctx, { grouped: req.grouped, order, page: req.grouped ? { ...page, seek: undefined } : page });
      return { kind: request.kind, ctx, detailed: { page: found, enrich: req.enrichResponse, grouped: req.grouped, order } };
    }
    case "weekly": {
      const req = request.req;
      const ctx = inPeriod(await reportContext(identity, scope, req, { weekly: true }), req, period, true);
      return { kind: request.kind, ctx, weekly: await weeklyRows(db, ctx) };
    }
  }
}
