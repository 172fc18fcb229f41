import { dbDate, type Knex } from "../../../lib/db.js";
import { readId } from "../../../lib/ids.js";
import { detailedReportColumns, type Cell, type ChartBar, type Column, type ReportTable } from "./formats/index.js";
import { detailedEntryPages, detailedRows, EXPORTED, type DetailedRow } from "./detailed.js";
import { flag, idsOf } from "./filters.js";
import { addDays, dayText, localClock, type DetailedOrder, type DisplayMode, type Dimension, type ReportRange } from "./rules.js";
import type { ReportContext } from "./context.js";
import { amountInCents, centsOf } from "../reporting.js";
import type { ReportRows } from "./run.js";
import type { Totals } from "./totals.js";

/** A run's results as a table reads them: the totals only where the file prints them (not in CSV). */
type TableRun = ReportRows & { totals?: Totals };

/**
 * A saved report's results as the table its files are written from (reports/formats/): the
 * detailed report's every row in the real detailed CSV's columns; the summary's groups and
 * sub-groups with their time (and amounts when the owner's view shows them); the weekly report's
 * rows day by day. Shared by the file answers of /reports/api/v3/shared/{token} and the PDF a
 * scheduled mail carries.
 */

/** A file's name: the report's kind and days, as the real exports name theirs. */
export const fileName = (run: Pick<ReportRows, "kind" | "ctx">, extension: string) => `${run.kind}_report_${dayText(run.ctx.range.first)}_${dayText(run.ctx.range.last)}.${extension}`;

const DIMENSION_TITLE: Record<Dimension, string> = { projects: "Project", clients: "Client", users: "User", tags: "Tags", tasks: "Task", time_entries: "Description" };
const WITHOUT: Record<Dimension, string> = { projects: "(no project)", clients: "(no client)", users: "(no user)", tags: "(no tags)", tasks: "(no task)", time_entries: "(no description)" };
export const KIND_TITLE = { summary: "Summary report", detailed: "Detailed report", weekly: "Weekly report" } as const;

const money = (run: TableRun, cents: number) => (run.ctx.amounts ? cents / 100 : null);
const amountColumn = (run: TableRun): Column[] => (run.ctx.amounts ? [{ header: `Amount (${run.ctx.currency})`, kind: "money", currency: run.ctx.currency }] : []);

/** The time per day of the range (the totals' graph by day), drawn above a PDF's table; none beyond a month. */
function chartOf(run: TableRun): ChartBar[] | undefined {
  if (run.totals?.resolution !== "day") return undefined;
  const names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  return run.totals.graph.map((point, i) => {
    const day = addDays(run.ctx.range.first, i);
    const weekday = names[new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay()];
    return { label: `${weekday} ${dayText(day).slice(5)}`, day: dayText(day), seconds: point.seconds };
  });
}

/** A detailed row in the real detailed CSV's columns, its times on the report zone's `clock`. */
function detailedCells(ctx: ReportContext, clock: ReturnType<typeof localClock>, row: DetailedRow): Cell[] {
  const first = row.entries[0];
  const last = row.entries[row.entries.length - 1];
  const [startDate, startTime] = clock(first.start);
  const [endDate, endTime] = clock(last.stop);
  const n = row.names;
  const cells: Cell[] = [
    n.username,
    n.email,
    n.clientName,
    n.projectName,
    n.taskName,
    row.description,
    row.billable ? "Yes" : "No",
    startDate,
    startTime,
    endDate,
    endTime,
    row.entries.reduce((total, e) => total + e.seconds, 0),
    n.tagNames.join(", "),
  ];
  return ctx.amounts ? [...cells, row.amountInCents / 100] : cells;
}

/**
 * The ungrouped detailed report's rows in the real detailed CSV's columns, straight from its
 * entries read as arrays (`detailedEntryPages`): the same cells as `detailedCells` makes of a
 * `DetailedRow` of one entry, without that row's objects; the tags' text made once per stored
 * list of tags. What a year's export (100,000 rows) spends its time on besides its query.
 */
async function* entryCells(db: Knex, ctx: ReportContext, order: DetailedOrder): AsyncGenerator<Cell[]> {
  const clock = localClock(ctx.zone);
  const tagTexts = new Map<unknown, string>();
  const at = EXPORTED;
  for await (const { rows, live } of detailedEntryPages(db, ctx, order)) {
    for (const e of rows) {
      const person = ctx.people.get(readId(e[at.userId]));
      const project = e[at.projectId] === null ? undefined : live.projects.get(readId(e[at.projectId]));
      const client = project?.client_id ? live.clients.get(project.client_id) : undefined;
      const task = e[at.taskId] === null ? undefined : live.tasks.get(readId(e[at.taskId]));
      let tags = tagTexts.get(e[at.tagIds]);
      if (tags === undefined) {
        tags = idsOf(e[at.tagIds])
          .filter((id) => live.tags.has(id))
          .map((id) => live.tags.get(id)!.name)
          .join(", ");
        if (tagTexts.size > 10_000) tagTexts.clear();
        tagTexts.set(e[at.tagIds], tags);
      }
      const billable = flag(e[at.billable]);
      const seconds = Number(e[at.seconds]);
      const [startDate, startTime] = clock(dbDate(e[at.start] as Date));
      const [endDate, endTime] = clock(dbDate(e[at.stop] as Date));
      const cells: Cell[] = [
        person?.name ?? "",
        person?.email ?? "",
        client?.name ?? null,
        project?.name ?? null,
        task?.name ?? null,
        String(e[at.description] ?? ""),
        billable ? "Yes" : "No",
        startDate,
        startTime,
        endDate,
        endTime,
        seconds,
        tags,
      ];
      if (ctx.amounts) cells.push((billable ? amountInCents([{ seconds, rateInCents: centsOf(Number(e[at.rate])) }]) : 0) / 100);
      yield cells;
    }
  }
}

/** Every row of the detailed report in the real detailed CSV's columns. */
function detailedTableRows(db: Knex, ctx: ReportContext, options: { grouped: boolean; order: DetailedOrder }): AsyncIterable<Cell[]> {
  if (!options.grouped) return entryCells(db, ctx, options.order);
  const clock = localClock(ctx.zone);
  return mapped(detailedRows(db, ctx, options), (row) => detailedCells(ctx, clock, row));
}

/** The columns a display mode keeps (date_only drops the times, time_only the dates). */
function shown(columns: Column[], mode: DisplayMode): number[] {
  const drop = mode === "date_only" ? ["Start time", "End time"] : mode === "time_only" ? ["Start date", "End date"] : [];
  return columns.map((c, i) => (drop.includes(c.header) ? -1 : i)).filter((i) => i >= 0);
}

async function* mapped<T>(rows: AsyncIterable<T>, cells: (row: T) => Cell[]): AsyncGenerator<Cell[]> {
  for await (const row of rows) yield cells(row);
}

/** The table of a saved report's run: `title` its name; the range and zone under it. */
export function reportTable(db: Knex, run: TableRun, title: string, mode: DisplayMode = "date_time"): ReportTable {
  const { ctx, totals } = run;
  // The kind under a saved report's own name; a workspace export's title is the kind already.
  const kind = title === KIND_TITLE[run.kind] ? "" : `${KIND_TITLE[run.kind]}, `;
  const subtitle = [`${kind}${dayText(ctx.range.first)} to ${dayText(ctx.range.last)} (${ctx.zone})`];
  const chart = chartOf(run);
  switch (run.kind) {
    case "detailed": {
      const all = detailedReportColumns(ctx.currency);
      const columns = ctx.amounts ? all : all.slice(0, -1);
      const keep = shown(columns, mode);
      const pick = (cells: Cell[]) => keep.map((i) => cells[i]);
      const { grouped, order } = run.detailed!;
      const totalsRow = totals && columns.map((c): Cell => (c.header === "User" ? "Total" : c.kind === "duration" ? totals.seconds : c.kind === "money" ? totals.amountInCents / 100 : null));
      const rows = detailedTableRows(db, ctx, { grouped, order });
      return {
        title,
        subtitle,
        columns: keep.map((i) => columns[i]),
        rows: keep.length === columns.length ? rows : mapped(rows, pick),
        totals: totalsRow && pick(totalsRow),
        chart,
      };
    }
    case "summary": {
      const { grouping, subGrouping, groups } = run.summary!;
      const columns: Column[] = [
        { header: DIMENSION_TITLE[grouping], kind: "text" },
        { header: DIMENSION_TITLE[subGrouping], kind: "text" },
        { header: "Duration", kind: "duration" },
        ...amountColumn(run),
      ];
      const rows = groups.flatMap((g) =>
        g.subGroups.map((s): Cell[] => {
          const cells: Cell[] = [g.name ?? WITHOUT[grouping], s.name ?? WITHOUT[subGrouping], s.seconds];
          return ctx.amounts ? [...cells, amountInCents(s.rates.map((r) => ({ seconds: r.billableSeconds, rateInCents: r.hourlyRateInCents }))) / 100] : cells;
        }),
      );
      const total: Cell[] | undefined = totals && ["Total", null, totals.seconds, ...(ctx.amounts ? [money(run, totals.amountInCents)] : [])];
      return { title, subtitle, columns, rows, totals: total, chart };
    }
    case "weekly": {
      const days = Array.from({ length: 7 }, (_, i) => dayText(addDays(ctx.range.first, i)));
      const columns: Column[] = [
        { header: "User", kind: "text" },
        { header: "Project", kind: "text" },
        { header: "Client", kind: "text" },
        ...days.map((d): Column => ({ header: d, kind: "duration" })),
        { header: "Total", kind: "duration" },
        ...amountColumn(run),
      ];
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const rows = run.weekly!.map((r): Cell[] => {
        const cells: Cell[] = [r.userName, r.projectName ?? WITHOUT.projects, r.clientName, ...r.seconds, sum(r.seconds)];
        return ctx.amounts ? [...cells, sum(r.amountsInCents) / 100] : cells;
      });
      const perDay = days.map((_, i) => sum(run.weekly!.map((r) => r.seconds[i])));
      const total: Cell[] | undefined = totals && ["Total", null, null, ...perDay, sum(perDay), ...(ctx.amounts ? [money(run, totals.amountInCents)] : [])];
      return { title, subtitle, columns, rows, totals: total, chart };
    }
  }
}

/**
 * The detailed report's every row over several ranges in turn, in date order, under one header:
 * a workspace export's whole history, a report's longest range at a time (what the real service's
 * detailed CSV holds, as `reportTable` writes it for one range).
 */
export function detailedHistoryTable(db: Knex, ctx: ReportContext, ranges: readonly ReportRange[]): ReportTable {
  const all = detailedReportColumns(ctx.currency);
  const order: DetailedOrder = { by: "date", descending: false };
  async function* rows(): AsyncGenerator<Cell[]> {
    for (const range of ranges) {
      yield* entryCells(db, { ...ctx, range }, order);
    }
  }
  return { title: KIND_TITLE.detailed, subtitle: [], columns: ctx.amounts ? all : all.slice(0, -1), rows: rows() };
}
