import type { MessageInitShape } from "@bufbuild/protobuf";
import type { FileChunkSchema } from "../../../gen/gateway/v1/files_pb.js";
import { projectStatus, type ProjectStatus } from "../projects/rules.js";
import type { ReportContext } from "../reports/context.js";
import { fileOfTable, type Cell, type Column, type ReportTable } from "../reports/formats/index.js";
import { dayText, localTimeText, type ReportRange } from "../reports/rules.js";
import type { EmployeeProfitability, ProjectsProfitability } from "./profitability.js";
import type { ProjectTrend } from "./project-trends.js";
import { variation } from "./rules.js";
import type { Totals } from "./store.js";

/**
 * The Insights API's exports: each report's table (the members', the projects', the project
 * trends') as a ReportTable, written as CSV or XLSX by the reports' writers (reports/formats/) and
 * streamed as FileChunk messages, named after the report and its range.
 */

export type FileType = "csv" | "xlsx";

/** The file's chunks: the table in the type's format, the first chunk naming the file. */
export function fileAnswer(type: FileType, table: ReportTable, name: string): AsyncIterable<MessageInitShape<typeof FileChunkSchema>> {
  return fileOfTable(type, table, `${name}.${type}`);
}

/** `<report>_<first day>_<last day>`: the file's name without its extension. */
export const reportFileName = (report: string, range: Pick<ReportRange, "first" | "last">) => `${report}_${dayText(range.first)}_${dayText(range.last)}`;

const rangeLine = (range: Pick<ReportRange, "first" | "last">) => `${dayText(range.first)} - ${dayText(range.last)}`;
const units = (cents: number) => cents / 100;
const hours = (seconds: number) => Math.round((seconds / 3600) * 100) / 100;

/** The columns every profitability table ends with, in the report's currency. */
function moneyColumns(currency: string): Column[] {
  return [
    { header: "Total time", kind: "duration" },
    { header: "Billable time", kind: "duration" },
    { header: `Revenue (${currency})`, kind: "money", currency },
    { header: `Labor cost (${currency})`, kind: "money", currency },
    { header: `Profit (${currency})`, kind: "money", currency },
  ];
}

const moneyCells = (t: Totals): Cell[] => [t.totalSeconds, t.billableSeconds, units(t.earnings), units(t.labourCost), units(t.earnings - t.labourCost)];

function sumOf(rows: readonly Totals[]): Totals {
  return rows.reduce((s, r) => ({ totalSeconds: s.totalSeconds + r.totalSeconds, billableSeconds: s.billableSeconds + r.billableSeconds, earnings: s.earnings + r.earnings, labourCost: s.labourCost + r.labourCost }), {
    totalSeconds: 0,
    billableSeconds: 0,
    earnings: 0,
    labourCost: 0,
  });
}

export function employeesTable(ctx: ReportContext, currency: string, rows: EmployeeProfitability[]): ReportTable {
  return {
    title: "Employee profitability",
    subtitle: [rangeLine(ctx.range)],
    columns: [{ header: "Member", kind: "text" }, { header: "Email", kind: "text" }, ...moneyColumns(currency)],
    rows: rows.map((r) => [r.name, r.email, ...moneyCells(r)]),
    totals: ["Total", null, ...moneyCells(sumOf(rows))],
  };
}

export function projectsTable(ctx: ReportContext, currency: string, report: ProjectsProfitability): ReportTable {
  return {
    title: "Project profitability",
    subtitle: [rangeLine(ctx.range)],
    columns: [{ header: "Project", kind: "text" }, { header: "Client", kind: "text" }, ...moneyColumns(currency)],
    rows: report.table.map((p) => [p.name, p.clientName, ...moneyCells(p)]),
    totals: ["Total", null, ...moneyCells(sumOf(report.table))],
  };
}

const STATUS_TEXT: Record<ProjectStatus, string> = { active: "Active", archived: "Archived", upcoming: "Upcoming", ended: "Ended", deleted: "Deleted" };

/** Hours per day with time (0 without any). */
function dailyAverage(seconds: number[]): number {
  const tracked = seconds.filter((s) => s > 0);
  return tracked.length ? tracked.reduce((a, b) => a + b, 0) / tracked.length : 0;
}

/**
 * The project trends as the real export lists them: name, creation day (the caller's zone),
 * status, contributors (names), total hours and their change in percent from the previous period,
 * the average hours per tracked day and its change.
 */
export function trendsTable(ctx: ReportContext, previous: ReportRange, trends: ProjectTrend[], today: string): ReportTable {
  const rows = trends.map((t): Cell[] => {
    const [current, before] = [t.current.reduce((a, b) => a + b, 0), t.previous.reduce((a, b) => a + b, 0)];
    const [average, averageBefore] = [dailyAverage(t.current), dailyAverage(t.previous)];
    const contributors = t.userIds.map((id) => ctx.people.get(id)?.name ?? "").sort((a, b) => a.localeCompare(b));
    return [
      t.project?.name ?? "",
      t.project ? localTimeText(t.project.created_at, ctx.zone).slice(0, 10) : null,
      t.project ? STATUS_TEXT[projectStatus(t.project, today)] : null,
      contributors.join(", "),
      hours(current),
      variation(current, before),
      hours(average),
      variation(average, averageBefore),
    ];
  });
  return {
    title: "Project trends",
    subtitle: [rangeLine(ctx.range), `Compared with ${rangeLine(previous)}`],
    columns: [
      { header: "Project Name", kind: "text" },
      { header: "Created", kind: "date" },
      { header: "Status", kind: "text" },
      { header: "Contributors", kind: "text" },
      { header: "Total (hours)", kind: "number" },
      { header: "Total Variation", kind: "number" },
      { header: "Daily Average (hours)", kind: "number" },
      { header: "Daily Average Variation", kind: "number" },
    ],
    rows,
  };
}
