import t from "tap";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { extractText, getDocumentProxy } from "unpdf";
import { csvFile, detailedCsvHeaders, detailedReportColumns, fileChunks, formatDuration, pdfFile, xlsxFile, type Cell, type ReportTable } from "../reports/formats/index.js";

/**
 * The report files, read back with a parser of each format: CSV rows with csv-parse, XLSX cells
 * with exceljs, PDF text with pdf.js (unpdf). Rows come from a generator that counts what is
 * read, so the tests also show that the writers read rows as they write, never all at once.
 */

async function bytesOf(file: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of file) parts.push(part);
  return Buffer.concat(parts);
}

/** Row `i` of the test's detailed report: its description and amount tell it apart. */
function entry(i: number): Cell[] {
  const day = `2024-05-${String(1 + (i % 28)).padStart(2, "0")}`;
  const description = i % 10 === 3 ? `Entry ${i}: ${"a careful and lengthy account of the work ".repeat(6)}` : `Entry ${i}`;
  return ["Ann Example", "ann@example.com", i % 2 ? "Acme" : null, "Website", null, description, i % 2 ? "Yes" : "No", day, "09:00:00", day, "10:30:15", 5415 + i, i % 3 ? "urgent, review" : "", i % 2 ? i + 0.5 : null];
}

/** A detailed report of `count` rows; `read.rows` counts the rows the writer has taken. */
function detailed(count: number, extra: Partial<ReportTable> = {}) {
  const read = { rows: 0, closed: false };
  function* rows() {
    try {
      for (let i = 0; i < count; i++) {
        read.rows++;
        yield entry(i);
      }
    } finally {
      read.closed = true;
    }
  }
  const table: ReportTable = {
    title: "Detailed report",
    subtitle: ["2024-05-01 – 2024-05-31", "Clients: Acme"],
    columns: detailedReportColumns("USD"),
    rows: rows(),
    totals: ["Total", null, null, null, null, null, null, null, null, null, null, 90061, null, 1234.5],
    ...extra,
  };
  return { table, read };
}

t.test("durations are written as the real CSV writes them: HH:MM:SS, hours past 24, whole seconds", async (t) => {
  t.same([0, 59, 3600, 90061, 360_000, 1.6, 3599.4].map(formatDuration), ["00:00:00", "00:00:59", "01:00:00", "25:01:01", "100:00:00", "00:00:02", "00:59:59"]);
});

t.test("the detailed report's columns are the real CSV's, the currency in the last header", async (t) => {
  t.same(detailedCsvHeaders("USD"), ["User", "Email", "Client", "Project", "Task", "Description", "Billable", "Start date", "Start time", "End date", "End time", "Duration", "Tags", "Amount (USD)"]);
  t.equal(detailedCsvHeaders("EUR").at(-1), "Amount (EUR)");
});

t.test("CSV: the header row and each row's values as the real CSV writes them", async (t) => {
  const { table } = detailed(3);
  const rows = parse(await bytesOf(csvFile(table))) as string[][];
  t.same(rows[0], detailedCsvHeaders("USD"));
  t.same(rows[1], ["Ann Example", "ann@example.com", "", "Website", "", "Entry 0", "No", "2024-05-01", "09:00:00", "2024-05-01", "10:30:15", "01:30:15", "", ""]);
  t.same(rows[2].slice(11), ["01:30:16", "urgent, review", "1.50"], "tags in one field, an amount with two decimals");
  t.equal(rows.length, 4, "no totals row unless asked for");
});

t.test("CSV: quotes, line breaks and commas survive; formulas are not run by a spreadsheet; totals and a BOM when asked", async (t) => {
  const text: ReportTable = {
    title: "x",
    subtitle: [],
    columns: [{ header: "Description", kind: "text" }, { header: "Duration", kind: "duration" }],
    rows: [['say "hi",\nthen go', 60], ["=HYPERLINK(\"http://evil\")", 120]],
    totals: ["Total", 180],
  };
  const bytes = await bytesOf(csvFile(text, { totals: true, bom: true }));
  t.same([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "a UTF-8 byte order mark");
  const rows = parse(bytes, { bom: true }) as string[][];
  t.same(rows, [
    ["Description", "Duration"],
    ['say "hi",\nthen go', "00:01:00"],
    ["'=HYPERLINK(\"http://evil\")", "00:02:00"],
    ["Total", "00:03:00"],
  ]);
});

t.test("each writer reads the rows as it writes, at its reader's pace, and closes them when the reader stops", async (t) => {
  for (const [name, write] of [["CSV", csvFile], ["XLSX", xlsxFile], ["PDF", pdfFile]] as const) {
    const { table, read } = detailed(200_000);
    const file = write(table)[Symbol.asyncIterator]();
    await file.next();
    // Give the writer time to run ahead if it would.
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.ok(read.rows < 20_000, `${name}: ${read.rows} of 200,000 rows read for the first bytes`);
    await file.return!(undefined);
    t.ok(read.closed, `${name}: the rows were closed (a query's cursor ends)`);
  }
});

t.test("a failure among the rows, or a value that does not fit its column, fails the file where it is read", async (t) => {
  async function* failing() {
    yield entry(0);
    throw new Error("the database went away");
  }
  for (const write of [csvFile, xlsxFile, pdfFile]) {
    await t.rejects(bytesOf(write({ ...detailed(0).table, rows: failing() })), /the database went away/);
    await t.rejects(bytesOf(write({ ...detailed(0).table, rows: [entry(0).map((v, i) => (i === 11 ? "1:00" : v))] })), /Duration: "1:00" is not a finite number/);
    await t.rejects(bytesOf(write({ ...detailed(0).table, rows: [entry(0).slice(1)] })), /13 cells for 14 columns/);
  }
});

t.test("XLSX: the title and lines, the header row frozen, real cells (dates, times, durations, amounts) and a bold totals row", async (t) => {
  const { table } = detailed(5);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await bytesOf(xlsxFile(table))) as never);
  const sheet = workbook.worksheets[0];
  t.equal(sheet.name, "Detailed report");
  t.same([sheet.getCell("A1").value, sheet.getCell("A2").value, sheet.getCell("A3").value], ["Detailed report", "2024-05-01 – 2024-05-31", "Clients: Acme"]);
  t.match(sheet.views[0], { state: "frozen", ySplit: 5 }, "the rows down to the header (5) stay in view");
  t.same((sheet.getRow(5).values as unknown[]).slice(1), detailedCsvHeaders("USD"));
  t.ok(sheet.getRow(5).getCell(1).font?.bold, "a bold header");

  const row = sheet.getRow(7); // the second entry
  const cell = (header: string) => row.getCell(detailedCsvHeaders("USD").indexOf(header) + 1);
  t.same([cell("User").value, cell("Client").value, cell("Task").value, cell("Tags").value], ["Ann Example", "Acme", null, "urgent, review"]);
  t.same(cell("Start date").value, new Date(Date.UTC(2024, 4, 2)), "a date is a date");
  t.equal(cell("Start date").numFmt, "yyyy-mm-dd");
  t.equal(cell("Start time").numFmt, "hh:mm:ss");
  const startTime = cell("Start time").value;
  // exceljs reads a time-formatted number back as a Date on 1899-12-30; either way it is 09:00:00 of no day.
  t.equal(startTime instanceof Date ? startTime.getTime() - Date.UTC(1899, 11, 30) : Number(startTime) * 86_400_000, 9 * 3600 * 1000);
  t.equal(cell("Duration").numFmt, "[h]:mm:ss", "hours go past 24");
  const duration = cell("Duration").value;
  t.equal(Math.round((duration instanceof Date ? (duration.getTime() - Date.UTC(1899, 11, 30)) / 1000 : Number(duration) * 86_400)), 5416, "a duration is a fraction of a day");
  t.same([cell("Amount (USD)").value, cell("Amount (USD)").numFmt], [1.5, '"$"#,##0.00;-"$"#,##0.00'], "an amount is a number in its currency's format");

  const totals = sheet.getRow(11);
  t.equal(totals.getCell(1).value, "Total");
  t.ok(totals.getCell(1).font?.bold, "a bold totals row");
  t.equal(totals.getCell(14).value, 1234.5);
  t.equal(totals.getCell(1).border?.top?.style, "thin");
  t.equal(sheet.rowCount, 11, "nothing after the totals");
});

t.test("XLSX: the chart's figures are a second sheet (exceljs writes no charts): a date and a duration per day, and their total", async (t) => {
  const chart = [
    { label: "Mon 05-13", day: "2024-05-13", seconds: 5400 },
    { label: "Tue 05-14", day: "2024-05-14", seconds: 0 },
    { label: "Wed 05-15", day: "2024-05-15", seconds: 90061 },
  ];
  const read = async (table: ReportTable) => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await bytesOf(xlsxFile(table))) as never);
    return workbook;
  };
  const workbook = await read(detailed(3, { chart }).table);
  t.same(
    workbook.worksheets.map((s) => s.name),
    ["Detailed report", "Time per day"],
  );
  const sheet = workbook.getWorksheet("Time per day")!;
  t.same((sheet.getRow(1).values as unknown[]).slice(1), ["Day", "Duration"]);
  t.ok(sheet.getRow(1).getCell(1).font?.bold, "a bold header");
  const seconds = (value: unknown) => Math.round(value instanceof Date ? (value.getTime() - Date.UTC(1899, 11, 30)) / 1000 : Number(value) * 86_400);
  for (const [i, bar] of chart.entries()) {
    const row = sheet.getRow(i + 2);
    t.same(row.getCell(1).value, new Date(`${bar.day}T00:00:00Z`), `${bar.day} is a date`);
    t.equal(row.getCell(1).numFmt, "yyyy-mm-dd");
    t.equal(seconds(row.getCell(2).value), bar.seconds);
    t.equal(row.getCell(2).numFmt, "[h]:mm:ss");
  }
  const total = sheet.getRow(5);
  t.same([total.getCell(1).value, seconds(total.getCell(2).value)], ["Total", 95461]);
  t.ok(total.getCell(1).font?.bold, "a bold totals row");
  t.equal(sheet.rowCount, 5);

  // Bars that name no day keep their labels, as text; a table without a chart has one sheet.
  const labelled = (await read(detailed(1, { chart: chart.map(({ label, seconds }) => ({ label, seconds })) }).table)).getWorksheet("Time per day")!;
  t.same([labelled.getCell("A2").value, labelled.getCell("A4").value], ["Mon 05-13", "Wed 05-15"]);
  t.same((await read(detailed(1).table)).worksheets.length, 1);
});

t.test("PDF: title, range, filters, totals and chart on the first page; the header on every page; no row split by a page break", async (t) => {
  const count = 120;
  const chart = Array.from({ length: 31 }, (_, d) => ({ label: `05-${String(d + 1).padStart(2, "0")}`, seconds: d === 4 ? 27 * 3600 + 1800 : d % 7 < 5 ? 8 * 3600 : 0 }));
  const { table } = detailed(count, { chart });
  const pdf = await getDocumentProxy(new Uint8Array(await bytesOf(pdfFile(table))));
  const { totalPages, text: pages } = await extractText(pdf, { mergePages: false });
  t.ok(totalPages >= 3, `${totalPages} pages`);
  const first = pages[0];
  for (const expected of ["Detailed report", "2024-05-01 – 2024-05-31", "Clients: Acme", "Total Duration 25:01:01 · Amount (USD) $1,234.50"]) t.ok(first.includes(expected), `the first page shows ${expected}`);
  t.match(first, /0 h[\s\S]*8 h[\s\S]*16 h[\s\S]*24 h[\s\S]*32 h/, "the chart's hours, four steps up to the highest bar (27:30)");
  t.match(first, /05-05\s+27:30/, "a bar's day and its time");
  pages.forEach((page, i) => {
    t.match(page, /User\s+Email\s+Client\s+Project\s+Task\s+Description\s+Billable/, `page ${i + 1} starts its table with the header`);
    t.ok(page.includes(`Page ${i + 1}`), `page ${i + 1} is numbered`);
  });
  // Each row's first and last cells (its description, its amount or duration) are on one page.
  for (let i = 0; i < count; i++) {
    const where = pages.findIndex((p) => new RegExp(`Entry ${i}\\b`).test(p));
    t.not(where, -1, `entry ${i} is shown`);
    const last = i % 2 ? `$${(i + 0.5).toFixed(2)}` : formatDuration(5415 + i);
    if (!pages[where].includes(last)) t.fail(`entry ${i}: its ${last} is not on its page ${where + 1}`);
  }
  t.match(pages.at(-1)!, /Total\s+25:01:01\s+\$1,234\.50\s*$/, "the totals row ends the table");
  const long = pages.join("\n").match(/Entry 3:[^…]*…/)?.[0] ?? "";
  t.ok(long.length > 20 && long.length < 200, `a long description is cut with an ellipsis: ${JSON.stringify(long)}`);
});

t.test("PDF: text in other scripts is written as it is (an embedded Unicode font)", async (t) => {
  const table: ReportTable = {
    title: "Отчёт — Übersicht",
    subtitle: ["Ελληνικά, Čeština"],
    columns: [{ header: "Описание", kind: "text" }, { header: "Duration", kind: "duration" }],
    rows: [["Обзор кода и планирование", 3600]],
  };
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(await bytesOf(pdfFile(table)))), { mergePages: true });
  for (const expected of ["Отчёт — Übersicht", "Ελληνικά, Čeština", "Описание", "Обзор кода и планирование", "01:00:00"]) t.ok(text.includes(expected), expected);
});

t.test("a file's bytes become FileChunk messages of about 64 KiB, the first carrying the file name", async (t) => {
  const { table } = detailed(5_000);
  const messages = [];
  for await (const m of fileChunks(csvFile(table), "Toggl_time_entries_2024-05-01_to_2024-05-31.csv")) messages.push(m);
  t.ok(messages.length > 3, `${messages.length} messages`);
  t.equal(messages[0].fileName, "Toggl_time_entries_2024-05-01_to_2024-05-31.csv");
  t.ok(messages.slice(1).every((m) => m.fileName === ""), "the name only once");
  t.ok(messages.slice(0, -1).every((m) => m.data!.byteLength >= 64 * 1024 && m.data!.byteLength < 128 * 1024), "64 KiB or a little more each");
  const csv = Buffer.concat(messages.map((m) => m.data!)).toString();
  t.equal(csv.split("\n").length, 5_000 + 2, "every row, in order");
  const empty = [];
  for await (const m of fileChunks((async function* () {})(), "empty.csv")) empty.push(m);
  t.same(empty.map((m) => [m.fileName, m.data!.byteLength]), [["empty.csv", 0]], "an empty file still names itself");
});
