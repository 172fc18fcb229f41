import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { ReportService } from "../../../gen/tracking/v1/reports_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { trackingScope } from "../scope.js";
import { reportContext } from "./context.js";
import { detailedPage } from "./detailed.js";
import { detailedOrder, pageStart, summaryGrouping, totalsResolution } from "./rules.js";
import { summaryAudit, summaryGroups } from "./summary.js";
import { detailedTotals } from "./totals.js";
import { detailedResponse, summaryResponse, totalsResponse, weeklyResponse } from "./view.js";
import { weeklyRows } from "./weekly.js";
import { fileOfTable, type FileFormat } from "./formats/index.js";
import { runReport, runRows, type ReportRequest } from "./run.js";
import { fileName, KIND_TITLE, reportTable } from "./tables.js";

/** The Reports API v3's JSON reports; the rows come from plain functions an export can call alike. */
export function reportHandlers({ storage, identity }: ResourceKit) {
  const { db } = storage;

  /**
   * A report as a file: run as the caller sees the workspace (refusals before any byte), named by
   * its kind and days; with its totals only where the file prints them (not in CSV).
   */
  async function* fileOf(ctx: HandlerContext, request: ReportRequest, extension: FileFormat) {
    const run = await (extension === "csv" ? runRows : runReport)(db, identity, trackingScope(ctx), request);
    yield* fileOfTable(extension, reportTable(db, run, KIND_TITLE[request.kind]), fileName(run, extension));
  }

  return (router: ConnectRouter) =>
    router.service(ReportService, {
      async getSummaryReport(req, ctx) {
        const scope = trackingScope(ctx);
        const { grouping, subGrouping } = summaryGrouping(req.grouping, req.subGrouping);
        const audit = summaryAudit(scope, req.audit);
        const report = await reportContext(identity, scope, req, { extraGiven: [req.grouping, req.subGrouping, req.audit] });
        const groups = await summaryGroups(db, report, {
          grouping,
          subGrouping,
          distinguishRates: req.distinguishRates,
          includeIds: req.includeTimeEntryIds,
          collapse: req.collapse,
          audit,
        });
        return summaryResponse(report, grouping, subGrouping, groups);
      },

      async searchDetailedReport(req, ctx) {
        const scope = trackingScope(ctx);
        const order = detailedOrder(req.orderBy, req.orderDir);
        const page = pageStart(req, order);
        const report = await reportContext(identity, scope, req, {
          hideAmounts: req.hideAmounts,
          extraGiven: [req.orderBy, req.orderDir, req.pageSize, req.firstId, req.firstRowNumber, req.firstTimestamp],
        });
        const found = await detailedPage(db, report, { grouped: req.grouped, order, page: req.grouped ? { ...page, seek: undefined } : page });
        return detailedResponse(report, found, req.enrichResponse);
      },

      async getDetailedReportTotals(req, ctx) {
        const scope = trackingScope(ctx);
        const resolution = totalsResolution(req.granularity, req.resolution);
        const report = await reportContext(identity, scope, req, { extraGiven: [req.granularity, req.resolution] });
        return totalsResponse(report, await detailedTotals(db, report, resolution), req.withGraph);
      },

      async getWeeklyReport(req, ctx) {
        const scope = trackingScope(ctx);
        const report = await reportContext(identity, scope, req, { weekly: true });
        return weeklyResponse(report, await weeklyRows(db, report));
      },

      exportSummaryReportCsv: (req, ctx) => fileOf(ctx, { kind: "summary", req }, "csv"),
      exportSummaryReportXlsx: (req, ctx) => fileOf(ctx, { kind: "summary", req }, "xlsx"),
      exportSummaryReportPdf: (req, ctx) => fileOf(ctx, { kind: "summary", req }, "pdf"),
      exportDetailedReportCsv: (req, ctx) => fileOf(ctx, { kind: "detailed", req }, "csv"),
      exportDetailedReportXlsx: (req, ctx) => fileOf(ctx, { kind: "detailed", req }, "xlsx"),
      exportDetailedReportPdf: (req, ctx) => fileOf(ctx, { kind: "detailed", req }, "pdf"),
      exportWeeklyReportCsv: (req, ctx) => fileOf(ctx, { kind: "weekly", req }, "csv"),
      exportWeeklyReportPdf: (req, ctx) => fileOf(ctx, { kind: "weekly", req }, "pdf"),
    });
}
