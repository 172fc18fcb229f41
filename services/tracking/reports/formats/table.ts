/**
 * The table a report file is written from, whatever the format: a title, lines under it (the
 * date range, the filters), typed columns, the rows as they come, a totals row, and optionally a
 * chart of time per day. The writers (csv.ts, xlsx.ts, pdf.ts) read it once, row by row.
 */

/**
 * How a column's values are written. `text`: a string. `date`: `YYYY-MM-DD` (in the report's
 * time zone). `time`: `HH:MM:SS`. `duration`: seconds. `number`: a number. `money`: an amount in
 * the column's currency (12.5 is 12.50).
 */
export type ColumnKind = "text" | "date" | "time" | "duration" | "number" | "money";

export interface Column {
  header: string;
  kind: ColumnKind;
  /** ISO 4217 code of a money column ("USD"). */
  currency?: string;
  /** Share of the width in the PDF and the XLSX, against the others'; by kind when left out. */
  width?: number;
}

/** One value of a row, as its column's kind says; `null` for none (an entry without project). */
export type Cell = string | number | null;

/** One bar of the chart: a day (its label as shown, e.g. `Mon 05-13`) and the time in it. */
export interface ChartBar {
  label: string;
  /** The day itself, `YYYY-MM-DD` (the XLSX writes it as a date). */
  day?: string;
  seconds: number;
}

export interface ReportTable {
  title: string;
  /** Lines under the title: the date range, the filters. */
  subtitle: string[];
  columns: Column[];
  /** Read once, in order, as the file is written (a query's cursor): never held whole. */
  rows: AsyncIterable<Cell[]> | Iterable<Cell[]>;
  /** Aligned with the columns: a label in a text column ("Total"), sums where they mean something, `null` elsewhere. */
  totals?: Cell[];
  /** Time per day: a bar chart above the PDF's table; a sheet of its figures in the XLSX (exceljs writes no charts). */
  chart?: ChartBar[];
}

/** The default share of the width of each kind (PDF, XLSX). */
export const KIND_WIDTHS: Record<ColumnKind, number> = { text: 3, date: 1.4, time: 1.2, duration: 1.4, number: 1.2, money: 1.6 };

/** True for the kinds written right-aligned (numbers, times, dates). */
export const alignsRight = (kind: ColumnKind) => kind !== "text";

/**
 * Seconds as the real service writes durations in its CSV files: `HH:MM:SS`, the hours going on
 * past 24 (`123:04:05`), whole seconds.
 */
export function formatDuration(seconds: number): string {
  const sign = seconds < 0 ? "-" : "";
  const whole = Math.round(Math.abs(seconds));
  return `${sign}${twoDigits(Math.floor(whole / 3600))}:${twoDigits(Math.floor(whole / 60) % 60)}:${twoDigits(whole % 60)}`;
}

const twoDigits = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * The columns of the real detailed report's CSV, in its order, with its header texts (the
 * currency in the last one is the workspace's). Tags are comma-separated in one text cell,
 * Billable `Yes`/`No`.
 */
export function detailedReportColumns(currency: string): Column[] {
  return [
    { header: "User", kind: "text", width: 2 },
    { header: "Email", kind: "text", width: 2.6 },
    { header: "Client", kind: "text", width: 2 },
    { header: "Project", kind: "text", width: 2.4 },
    { header: "Task", kind: "text", width: 2 },
    { header: "Description", kind: "text", width: 4 },
    { header: "Billable", kind: "text", width: 1.1 },
    { header: "Start date", kind: "date" },
    { header: "Start time", kind: "time" },
    { header: "End date", kind: "date" },
    { header: "End time", kind: "time" },
    { header: "Duration", kind: "duration" },
    { header: "Tags", kind: "text", width: 2 },
    { header: `Amount (${currency})`, kind: "money", currency },
  ];
}

/** The header row of the real detailed report's CSV. */
export const detailedCsvHeaders = (currency: string) => detailedReportColumns(currency).map((c) => c.header);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}$/;

/** Why a value does not fit its column's kind, or undefined. */
function misfit(kind: ColumnKind, value: Cell): string | undefined {
  if (value === null) return undefined;
  switch (kind) {
    case "text":
      return typeof value === "string" ? undefined : "a string";
    case "date":
      return typeof value === "string" && DATE.test(value) ? undefined : "YYYY-MM-DD";
    case "time":
      return typeof value === "string" && TIME.test(value) ? undefined : "HH:MM:SS";
    default:
      return typeof value === "number" && Number.isFinite(value) ? undefined : "a finite number";
  }
}

/** Checks a row (or the totals) against the columns: a writer never writes what a column cannot show. */
export function checkRow(columns: Column[], row: Cell[]): void {
  if (row.length !== columns.length) throw new Error(`a report row has ${row.length} cells for ${columns.length} columns`);
  for (let i = 0; i < columns.length; i++) {
    const wrong = misfit(columns[i].kind, row[i]);
    if (wrong) throw new Error(`report column ${columns[i].header}: ${JSON.stringify(row[i])} is not ${wrong}`);
  }
}

/** Checks the columns once: money columns name a currency that exists. */
export function checkColumns(columns: Column[]): void {
  for (const c of columns) {
    if (c.kind !== "money") continue;
    if (!c.currency) throw new Error(`report column ${c.header}: a money column names its currency`);
    moneyFormat(c.currency);
  }
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** The formatter of amounts in a currency (`$1,234.50`, `€12.00`), made once per currency. */
export function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { style: "currency", currency });
    moneyFormats.set(currency, format);
  }
  return format;
}

/** A cell as text for reading (the PDF): durations `HH:MM:SS`, amounts with their currency. */
export function displayText(column: Column, value: Cell): string {
  if (value === null) return "";
  switch (column.kind) {
    case "duration":
      return formatDuration(value as number);
    case "money":
      return moneyFormat(column.currency!).format(value as number);
    case "number":
      return (value as number).toLocaleString("en-US", { maximumFractionDigits: 2 });
    default:
      return String(value);
  }
}
