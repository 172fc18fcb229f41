import type { ConnectRouter } from "@connectrpc/connect";
import { ReportService, type SummaryReportAudit } from "../../../gen/tracking/v1/reports_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { reportFeatureNeeded } from "../errors.js";
import { trackingScope, type TrackingScope } from "../scope.js";
import { reportContext } from "./context.js";
import { detailedPage } from "./detailed.js";
import { detailedOrder, pageStart, summaryGrouping, totalsResolution } from "./rules.js";
import { summaryGroups, type SummaryAudit } from "./summary.js";
import { detailedTotals } from "./totals.js";
import { detailedResponse, summaryResponse, totalsResponse, weeklyResponse } from "./view.js";
import { weeklyRows } from "./weekly.js";

const bound = (v: bigint | undefined) => (v === undefined ? undefined : Number(v));

/** The summary's time audit (a premium feature): which groups are shown, by their totals. */
function summaryAudit(scope: TrackingScope, audit: SummaryReportAudit | undefined): SummaryAudit | undefined {
  if (!audit) return undefined;
  if (!scope.premium) throw reportFeatureNeeded();
  const f = audit.groupFilter;
  return {
    showEmptyGroups: audit.showEmptyGroups ?? false,
    showTrackedGroups: audit.showTrackedGroups ?? true,
    minSeconds: bound(f?.minDurationSeconds),
    maxSeconds: bound(f?.maxDurationSeconds),
    minAmountInCents: bound(f?.minAmountCents),
    maxAmountInCents: bound(f?.maxAmountCents),
  };
}

/** The Reports API v3's JSON reports; the rows come from plain functions an export can call alike. */
export function reportHandlers({ storage, identity }: ResourceKit) {
  const { db } = storage;
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
    });
}
