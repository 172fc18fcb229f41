import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import {
  ComparativeFiltersSchema,
  DataTrendsFiltersSchema,
  EmployeeProfitabilityFiltersSchema,
  InsightService,
  ProjectProfitabilityFiltersSchema,
  ProjectTrendFiltersSchema,
  type DataTrendsFilters,
  type EmployeeProfitabilityFilters,
  type ProjectProfitabilityFilters,
  type ProjectTrendFilters,
} from "../../../gen/tracking/v1/insights_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { dayOf } from "../projects/rules.js";
import { reportContext, type EntryFilters, type ReportContext } from "../reports/context.js";
import { dayText, idList } from "../reports/rules.js";
import { trackingScope } from "../scope.js";
import { comparativeSeconds } from "./comparative.js";
import { dataTrends, type TrendSubject } from "./data-trends.js";
import { employeesTable, fileAnswer, projectsTable, reportFileName, trendsTable, type FileType } from "./files.js";
import { employeesProfitability, projectsProfitability } from "./profitability.js";
import { projectTrends } from "./project-trends.js";
import { employeeResolution, graphResolution, periodsOf, previousPeriod, reportInput, requiredCurrency, resolutionChoice, trendProjectIds } from "./rules.js";
import { clientTrendsResponse, comparativeResponse, profitabilityResponse, projectTrendRowsResponse, projectTrendsResponse, userTrendsResponse } from "./view.js";

/** The named members of a data trend as the report's filter: only their time counts. */
function trendFilter(subject: TrendSubject, ids: bigint[]): Partial<EntryFilters> {
  if (subject === "users") return { userIds: ids };
  return subject === "projects" ? { projects: { ids, none: false } } : { clients: { ids, none: false } };
}

/**
 * The insights of the Reports API v3 and the Insights API, and the Insights API's exports. Each
 * settles its body and context the way the reports do (reports/context.ts), then computes its rows
 * with a plain function; an export writes the same rows as a file.
 */
export function insightHandlers({ storage, identity, clock }: ResourceKit) {
  const { db } = storage;

  async function trends(subject: TrendSubject, filters: DataTrendsFilters | undefined, ctx: HandlerContext) {
    const scope = trackingScope(ctx);
    const f = filters ?? create(DataTrendsFiltersSchema);
    const currency = requiredCurrency(f.currency);
    const named = subject === "projects" ? trendProjectIds(f.ids) : idList(f.ids);
    const choice = resolutionChoice(f.resolution);
    const base = await reportContext(identity, scope, reportInput(f), { extraGiven: [f.currency, f.ids, f.resolution] });
    const report: ReportContext = named ? { ...base, filters: { ...base.filters, ...trendFilter(subject, named) } } : base;
    const periods = periodsOf(report.range, graphResolution(choice, report.range), report.weekStart);
    return { report, currency, periods, members: await dataTrends(db, report, subject, { currency, periods, named }) };
  }

  async function projectProfitability(filters: ProjectProfitabilityFilters | undefined, ctx: HandlerContext) {
    const f = filters ?? create(ProjectProfitabilityFiltersSchema);
    const currency = requiredCurrency(f.currency);
    const choice = resolutionChoice(f.resolution);
    const report = await reportContext(identity, trackingScope(ctx), reportInput(f), { extraGiven: [f.currency, f.resolution] });
    const periods = periodsOf(report.range, graphResolution(choice, report.range), report.weekStart);
    return { report, currency, periods, profitability: await projectsProfitability(db, report, currency, periods) };
  }

  async function employeeProfitability(filters: EmployeeProfitabilityFilters | undefined, ctx: HandlerContext) {
    const f = filters ?? create(EmployeeProfitabilityFiltersSchema);
    const currency = requiredCurrency(f.currency);
    // Checked; the file holds the range's totals per member.
    employeeResolution(f.resolution);
    const report = await reportContext(identity, trackingScope(ctx), reportInput(f), { extraGiven: [f.currency, f.resolution] });
    return { report, currency, rows: await employeesProfitability(db, report, currency) };
  }

  async function trendsAgainstPrevious(filters: ProjectTrendFilters | undefined, ctx: HandlerContext) {
    const f = filters ?? create(ProjectTrendFiltersSchema);
    const report = await reportContext(identity, trackingScope(ctx), reportInput(f), { extraGiven: [f.previousPeriodStart] });
    const previous = previousPeriod(report.range, f.previousPeriodStart, report.zone);
    return { report, previous, trends: await projectTrends(db, report, previous, report.filters.projects?.ids) };
  }

  /** An export's file: the report's rows as a table, in the type's format. */
  async function* employeesFile(type: FileType, filters: EmployeeProfitabilityFilters | undefined, ctx: HandlerContext) {
    const { report, currency, rows } = await employeeProfitability(filters, ctx);
    yield* fileAnswer(type, employeesTable(report, currency, rows), reportFileName("employee_profitability", report.range));
  }

  async function* projectsFile(type: FileType, filters: ProjectProfitabilityFilters | undefined, ctx: HandlerContext) {
    const { report, currency, profitability } = await projectProfitability(filters, ctx);
    yield* fileAnswer(type, projectsTable(report, currency, profitability), reportFileName("project_profitability", report.range));
  }

  async function* trendsFile(type: FileType, filters: ProjectTrendFilters | undefined, ctx: HandlerContext) {
    const { report, previous, trends } = await trendsAgainstPrevious(filters, ctx);
    yield* fileAnswer(type, trendsTable(report, previous, trends, dayOf(clock.now())), reportFileName("project_trends", report.range));
  }

  return (router: ConnectRouter) =>
    router.service(InsightService, {
      async getComparativeReport(req, ctx) {
        const f = req.filters ?? create(ComparativeFiltersSchema);
        const choice = resolutionChoice(f.resolution);
        const report = await reportContext(identity, trackingScope(ctx), reportInput(f), { extraGiven: [f.resolution] });
        const periods = periodsOf(report.range, graphResolution(choice, report.range), report.weekStart);
        return comparativeResponse(periods, await comparativeSeconds(db, report, periods));
      },

      async getClientDataTrends(req, ctx) {
        const { report, currency, periods, members } = await trends("clients", req.filters, ctx);
        return clientTrendsResponse(report, currency, periods, members);
      },

      async getProjectDataTrends(req, ctx) {
        const { report, currency, periods, members } = await trends("projects", req.filters, ctx);
        return projectTrendsResponse(report, currency, periods, members);
      },

      async getUserDataTrends(req, ctx) {
        const { report, currency, periods, members } = await trends("users", req.filters, ctx);
        return userTrendsResponse(report, currency, periods, members);
      },

      async getProjectProfitability(req, ctx) {
        const { currency, periods, profitability } = await projectProfitability(req.filters, ctx);
        return profitabilityResponse(currency, periods, profitability);
      },

      async getProjectTrends(req, ctx) {
        const { report, previous, trends } = await trendsAgainstPrevious(req.filters, ctx);
        return projectTrendRowsResponse(report, dayText(previous.first), trends);
      },

      exportEmployeeProfitabilityCsv: (req, ctx) => employeesFile("csv", req.filters, ctx),
      exportEmployeeProfitabilityXlsx: (req, ctx) => employeesFile("xlsx", req.filters, ctx),
      exportProjectProfitabilityCsv: (req, ctx) => projectsFile("csv", req.filters, ctx),
      exportProjectProfitabilityXlsx: (req, ctx) => projectsFile("xlsx", req.filters, ctx),
      exportProjectTrendsCsv: (req, ctx) => trendsFile("csv", req.filters, ctx),
      exportProjectTrendsXlsx: (req, ctx) => trendsFile("xlsx", req.filters, ctx),
    });
}
