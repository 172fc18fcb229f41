import { PassThrough } from "node:stream";
import ExcelJS from "exceljs";
import { bytesOf, PACE_LIMIT_BYTES } from "./bytes.js";
import { checkColumns, checkRow, KIND_WIDTHS, moneyFormat, type Cell, type ChartBar, type Column, type ReportTable } from "./table.js";

/**
 * The table as an XLSX workbook of one sheet, written with exceljs's streaming writer (each row
 * goes out when committed): the title and the lines under it, the header row (frozen, so it stays
 * in view), the rows, the totals row. Cells are real values: dates are dates, times and
 * durations fractions of a day (durations formatted `[h]:mm:ss`, so that hours go past 24 and
 * sums stay right), amounts numbers in their currency's format. The PDF's chart of time per day
 * becomes a second sheet of its figures (day, duration, a total): exceljs writes no charts, and a
 * chart part written by hand (DrawingML) is more than the figures are worth; a spreadsheet
 * program charts the two columns in two clicks.
 */

const SECONDS_PER_DAY = 86_400;

/** The cell format of each kind; money's is its currency's. */
function numberFormat(column: Column): string | undefined {
  switch (column.kind) {
    case "date":
      return "yyyy-mm-dd";
    case "time":
      return "hh:mm:ss";
    case "duration":
      return "[h]:mm:ss";
    case "money":
      return currencyFormat(column.currency!);
    default:
      return undefined;
  }
}

/** `"$"#,##0.00`: the currency's symbol as the en-US format shows it, as a literal (readable by every spreadsheet program). */
function currencyFormat(currency: string): string {
  const symbol = moneyFormat(currency).formatToParts(0).find((p) => p.type === "currency")?.value ?? currency;
  const literal = `"${symbol.replaceAll('"', "")}"`;
  return `${literal}#,##0.00;-${literal}#,##0.00`;
}

const secondsOfTime = (time: string) => {
  const [h, m, s] = time.split(":").map(Number);
  return h * 3600 + m * 60 + s;
};

/** A cell's value as exceljs writes it. */
function xlsxValue(column: Column, value: Cell): ExcelJS.CellValue {
  if (value === null) return null;
  switch (column.kind) {
    case "date": {
      const [y, m, d] = (value as string).split("-").map(Number);
      // exceljs writes a Date as its UTC day: the date itself, in no time zone.
      return new Date(Date.UTC(y, m - 1, d));
    }
    case "time":
      return secondsOfTime(value as string) / SECONDS_PER_DAY;
    case "duration":
      return (value as number) / SECONDS_PER_DAY;
    default:
      return value;
  }
}

/** A sheet's name: at most 31 characters, none of `[]:*?/\`. */
function sheetName(title: string): string {
  return title.replace(/[[\]:*?/\\]/g, " ").trim().slice(0, 31) || "Report";
}

const BOLD = { bold: true };
const HEADER_FILL: ExcelJS.Fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFEEEEEE" } };

/** The chart's figures as a sheet: a row per day (its date, or its label without one), its duration, and their total. */
function addChartSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, bars: ChartBar[]): void {
  const columns: Column[] = [
    { header: "Day", kind: bars.every((b) => b.day) ? "date" : "text" },
    { header: "Duration", kind: "duration" },
  ];
  const sheet = workbook.addWorksheet(CHART_SHEET, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({ key: c.header, width: 14 }));
  const header = sheet.addRow(columns.map((c) => c.header));
  header.font = BOLD;
  header.commit();
  const [day, duration] = columns;
  const add = (label: ExcelJS.CellValue, seconds: number) => {
    const row = sheet.addRow([label, xlsxValue(duration, seconds)]);
    row.getCell(2).numFmt = numberFormat(duration)!;
    return row;
  };
  for (const bar of bars) {
    const row = add(xlsxValue(day, bar.day ?? bar.label), bar.seconds);
    if (day.kind === "date") row.getCell(1).numFmt = numberFormat(day)!;
    row.commit();
  }
  const total = add("Total", bars.reduce((sum, b) => sum + b.seconds, 0));
  total.font = BOLD;
  total.getCell(1).border = total.getCell(2).border = { top: { style: "thin" } };
  total.commit();
  sheet.commit();
}

/** The name of the sheet of the chart's figures. */
export const CHART_SHEET = "Time per day";

export function xlsxFile(table: ReportTable): AsyncIterable<Uint8Array> {
  const { columns } = table;
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  return bytesOf(out, async (pace) => {
    checkColumns(columns);
    const formats = columns.map(numberFormat);
    // The header row comes after the title, the subtitle lines and an empty row.
    const headerRow = table.subtitle.length + 3;
    const sheet = workbook.addWorksheet(sheetName(table.title), { views: [{ state: "frozen", ySplit: headerRow }] });
    sheet.columns = columns.map((c) => ({ key: c.header, width: Math.round((c.width ?? KIND_WIDTHS[c.kind]) * 7) }));

    const title = sheet.addRow([table.title]);
    title.font = { bold: true, size: 14 };
    title.commit();
    for (const line of table.subtitle) sheet.addRow([line]).commit();
    sheet.addRow([]).commit();
    const header = sheet.addRow(columns.map((c) => c.header));
    header.eachCell((cell, i) => {
      cell.font = BOLD;
      cell.fill = HEADER_FILL;
      cell.alignment = { horizontal: columns[i - 1].kind === "text" ? "left" : "right" };
    });
    header.commit();

    const addRow = (values: Cell[]) => {
      const row = sheet.addRow(values.map((value, i) => xlsxValue(columns[i], value)));
      for (let i = 0; i < columns.length; i++) if (formats[i] && values[i] !== null) row.getCell(i + 1).numFmt = formats[i]!;
      return row;
    };
    for await (const values of table.rows) {
      checkRow(columns, values);
      addRow(values).commit();
      await pace();
    }
    if (table.totals) {
      checkRow(columns, table.totals);
      const totals = addRow(table.totals);
      for (let i = 1; i <= columns.length; i++) {
        const cell = totals.getCell(i);
        cell.font = BOLD;
        cell.border = { top: { style: "thin" } };
      }
      totals.commit();
    }
    sheet.commit();
    if (table.chart?.length) addChartSheet(workbook, table.chart);
    await workbook.commit();
  },
  // The zip stream writes into `out` as it compresses; a full `out` asks it for a drain.
  () => out.writableNeedDrain || out.readableLength > PACE_LIMIT_BYTES);
}
