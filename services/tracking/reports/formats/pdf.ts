import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import PDFDocument from "pdfkit";
import { bytesOf, PACE_LIMIT_BYTES } from "./bytes.js";
import { alignsRight, checkColumns, checkRow, displayText, formatDuration, KIND_WIDTHS, type Cell, type ChartBar, type Column, type ColumnKind, type ReportTable } from "./table.js";

/**
 * The table as a PDF (A4 landscape), written with pdfkit page by page as the rows come: the
 * title, the lines under it and a totals line; a bar chart of time per day when the table has
 * one; then the table, its header row repeated at the top of every page, no row ever split by a
 * page break (a cell's text is cut at three lines, with an ellipsis). Every page carries the
 * title and its number at the foot.
 *
 * The table is laid out here, not with pdfkit's own `table()`: that one neither repeats its
 * header on a new page nor tells its caller of one, and keeps every row's position until it ends.
 * The font is DejaVu Sans Condensed (embedded, subset): descriptions in any script a real user
 * writes (Cyrillic, Greek, accents ...) show as written, which pdfkit's built-in Helvetica cannot.
 */

const fontFile = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}`));
let fonts: { regular: Buffer; bold: Buffer } | undefined;
/** The font files, read once per process. */
const fontData = () => (fonts ??= { regular: fontFile("DejaVuSansCondensed.ttf"), bold: fontFile("DejaVuSansCondensed-Bold.ttf") });

/** A4 landscape, in points. */
const PAGE = { width: 841.89, height: 595.28 };
const MARGIN = 36;
/** Room at the foot of every page for its footer line. */
const FOOT = 30;
const SIZE = { title: 16, subtitle: 9, totals: 10, cell: 8, chart: 7, footer: 7 };
const PAD = { x: 4, y: 3 };
/** The most lines a cell shows; a longer text ends in an ellipsis. */
const MAX_CELL_LINES = 3;
const COLOR = { text: "#1f1f1f", muted: "#666666", rule: "#d9d9d9", headerFill: "#eeeeee", bar: "#5b6ee1", grid: "#e6e6e6" };
const CHART_HEIGHT = 150;

type Doc = PDFKit.PDFDocument;

/**
 * pdfkit remembers the layout of every word it writes with an embedded font, for the whole
 * document: for a report of many rows (ids, times, amounts: words seldom seen twice) that grew
 * by some 2 KiB a row. Without the cache (`fontLayoutCache: false`) a report takes ten times as
 * long, so it is kept for one page: emptied at each page break, it still lays out once a page the
 * words a page repeats (names, projects, "Yes"). Kept longer (up to 2,000 words across pages),
 * what it held lived long enough to reach V8's old generation, where it stayed as garbage until a
 * full collection: a year's PDF (100,000 rows) grew the process by 140-190 MiB, over the exports'
 * 100 MiB bound (bench/report-files.ts, docs/reports.md "Speed"). The cache is pdfkit's
 * own field (`EmbeddedFont.layoutCache`); were it renamed, this would do nothing and
 * bench/report-files.ts would show the PDF's memory grow again.
 */
function forgetLayouts(doc: Doc): void {
  const families = (doc as unknown as { _fontFamilies?: Record<string, { layoutCache?: object }> })._fontFamilies ?? {};
  for (const font of Object.values(families)) {
    if (font.layoutCache) font.layoutCache = Object.create(null);
  }
}

/** The table's drawing state: where the next row goes, on which page. */
class Layout {
  private readonly x: number[] = [];
  private readonly widths: number[];
  private y = 0;
  private page = 0;
  private readonly lineHeight: number;

  constructor(
    private readonly doc: Doc,
    private readonly table: ReportTable,
  ) {
    this.widths = columnWidths(doc, table.columns, PAGE.width - 2 * MARGIN);
    let left = MARGIN;
    for (const w of this.widths) {
      this.x.push(left);
      left += w;
    }
    doc.font("regular").fontSize(SIZE.cell);
    this.lineHeight = doc.currentLineHeight(true);
  }

  private readonly bottom = PAGE.height - FOOT;

  /** A new page with its footer; the table's header row on it when `header`. */
  newPage(header: boolean): void {
    const { doc } = this;
    forgetLayouts(doc);
    doc.addPage();
    this.page++;
    doc.font("regular").fontSize(SIZE.footer).fillColor(COLOR.muted);
    const footY = PAGE.height - FOOT + 10;
    doc.text(this.table.title, MARGIN, footY, { lineBreak: false });
    const number = `Page ${this.page}`;
    doc.text(number, PAGE.width - MARGIN - doc.widthOfString(number), footY, { lineBreak: false });
    this.y = MARGIN;
    if (header) this.headerRow();
  }

  /** The title, the lines under it, the totals line and the chart: the top of the first page. */
  heading(): void {
    const { doc, table } = this;
    this.newPage(false);
    const width = PAGE.width - 2 * MARGIN;
    doc.font("bold").fontSize(SIZE.title).fillColor(COLOR.text).text(table.title, MARGIN, this.y, { width });
    this.y = doc.y + 4;
    doc.font("regular").fontSize(SIZE.subtitle).fillColor(COLOR.muted);
    for (const line of table.subtitle) {
      doc.text(line, MARGIN, this.y, { width });
      this.y = doc.y + 1;
    }
    const totals = totalsLine(table.columns, table.totals);
    if (totals) {
      this.y += 6;
      doc.font("bold").fontSize(SIZE.totals).fillColor(COLOR.text).text(totals, MARGIN, this.y, { width });
      this.y = doc.y;
    }
    this.y += 12;
    if (table.chart && table.chart.length > 0) {
      drawChart(doc, table.chart, MARGIN, this.y, width, CHART_HEIGHT);
      this.y += CHART_HEIGHT + 16;
    }
    this.headerRow();
  }

  private headerRow(): void {
    this.draw(
      this.table.columns.map((c) => c.header),
      "bold",
      { fill: COLOR.headerFill },
    );
  }

  /** One row of the table, on this page if it fits whole, else on the next (after its header row). */
  row(values: Cell[], totals = false): void {
    const texts = values.map((v, i) => displayText(this.table.columns[i], v));
    this.draw(texts, totals ? "bold" : "regular", { ruleAbove: totals });
  }

  private draw(texts: string[], font: "regular" | "bold", style: { fill?: string; ruleAbove?: boolean }): void {
    const { doc } = this;
    doc.font(font).fontSize(SIZE.cell);
    const room = this.widths.map((w) => w - 2 * PAD.x);
    const maxText = this.lineHeight * MAX_CELL_LINES;
    const oneLine = texts.map((t, i) => !t.includes("\n") && doc.widthOfString(t) <= room[i]);
    const heights = texts.map((t, i) => (oneLine[i] ? this.lineHeight : Math.min(doc.heightOfString(t, { width: room[i] }), maxText)));
    const height = Math.max(...heights) + 2 * PAD.y;
    if (this.y + height > this.bottom) {
      this.newPage(style.fill === undefined);
      doc.font(font).fontSize(SIZE.cell);
    }
    const top = this.y;
    const left = MARGIN;
    const right = PAGE.width - MARGIN;
    if (style.fill) doc.rect(left, top, right - left, height).fill(style.fill);
    if (style.ruleAbove) doc.moveTo(left, top).lineTo(right, top).lineWidth(0.8).strokeColor(COLOR.text).stroke();
    doc.fillColor(COLOR.text);
    const columns = this.table.columns;
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      if (!text) continue;
      const x = this.x[i] + PAD.x;
      const align = alignsRight(columns[i].kind) ? "right" : "left";
      if (oneLine[i]) {
        const at = align === "right" ? x + room[i] - doc.widthOfString(text) : x;
        doc.text(text, at, top + PAD.y, { lineBreak: false });
      } else {
        doc.text(text, x, top + PAD.y, { width: room[i], height: maxText, ellipsis: true, align });
      }
    }
    doc
      .moveTo(left, top + height)
      .lineTo(right, top + height)
      .lineWidth(0.5)
      .strokeColor(COLOR.rule)
      .stroke();
    this.y = top + height;
  }
}

/** Values as wide as most of a kind's: its column is made at least that wide, so that they never wrap. */
const SAMPLES: Partial<Record<ColumnKind, number | string>> = { date: "2024-12-31", time: "00:00:00", duration: 999 * 3600, number: 99_999.99, money: 99_999.99 };

/**
 * The columns' widths: a column of dates, times, durations or numbers as wide as its values
 * (and the longest word of its header) need, the text columns sharing the rest by their shares,
 * none narrower than the longest word of its header.
 */
function columnWidths(doc: Doc, columns: Column[], total: number): number[] {
  // Measured in bold: the header and the totals row are.
  doc.font("bold").fontSize(SIZE.cell);
  const least = columns.map((c) => {
    const word = Math.max(...c.header.split(/\s+/).map((w) => doc.widthOfString(w)));
    const sample = SAMPLES[c.kind];
    const value = sample === undefined ? 0 : doc.widthOfString(typeof sample === "string" ? sample : displayText(c, sample));
    return Math.max(word, value) + 2 * PAD.x + 1;
  });
  const fixed = columns.reduce((sum, c, i) => (c.kind === "text" ? sum : sum + least[i]), 0);
  const share = columns.map((c) => (c.kind === "text" ? (c.width ?? KIND_WIDTHS.text) : 0));
  const shares = share.reduce((a, b) => a + b, 0);
  const widths = columns.map((c, i) => (c.kind === "text" ? Math.max(least[i], ((total - fixed) * share[i]) / shares) : least[i]));
  // Wider than the page when the least widths are (many columns): all shrink alike.
  const sum = widths.reduce((a, b) => a + b, 0);
  return sum > total ? widths.map((w) => (w * total) / sum) : widths;
}

/** `Total  Duration 12:00:00  ·  Amount (USD) $1,234.50`: the totals that are not text, by their column. */
function totalsLine(columns: Column[], totals: Cell[] | undefined): string | undefined {
  if (!totals) return undefined;
  const parts = columns.flatMap((c, i) => (c.kind === "text" || totals[i] === null ? [] : [`${c.header} ${displayText(c, totals[i])}`]));
  return parts.length ? `Total  ${parts.join("  ·  ")}` : undefined;
}

/** The chart's top: four even steps of round hours, the first that reach the highest bar. */
function chartTop(maxSeconds: number): number {
  const hours = Math.max(maxSeconds / 3600, 1);
  const step = [0.25, 0.5, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 50, 60, 80, 100].find((s) => s * 4 >= hours) ?? Math.ceil(hours / 4);
  return step * 4 * 3600;
}

const hoursLabel = (seconds: number) => `${Number((seconds / 3600).toFixed(2))} h`;
/** A bar's value: `7:30` (hours and minutes). */
const barLabel = (seconds: number) => formatDuration(seconds).replace(/^0?(\d+:\d{2}):\d{2}$/, "$1");

/** Time per day as bars under four grid lines in hours, each bar with its day below and its time above when there is room. */
function drawChart(doc: Doc, bars: ChartBar[], x: number, y: number, width: number, height: number): void {
  const top = chartTop(Math.max(...bars.map((b) => b.seconds)));
  doc.font("regular").fontSize(SIZE.chart);
  const axisWidth = doc.widthOfString(hoursLabel(top)) + 6;
  const labelHeight = doc.currentLineHeight(true) + 4;
  const plot = { x: x + axisWidth, y: y + labelHeight, width: width - axisWidth, height: height - 2 * labelHeight };
  const base = plot.y + plot.height;
  for (let i = 0; i <= 4; i++) {
    const lineY = base - (plot.height * i) / 4;
    doc.moveTo(plot.x, lineY).lineTo(plot.x + plot.width, lineY).lineWidth(0.5).strokeColor(i === 0 ? COLOR.muted : COLOR.grid).stroke();
    const label = hoursLabel((top * i) / 4);
    doc.fillColor(COLOR.muted).text(label, plot.x - 4 - doc.widthOfString(label), lineY - doc.currentLineHeight() / 2, { lineBreak: false });
  }
  const slot = plot.width / bars.length;
  const barWidth = Math.max(slot * 0.6, 1);
  const widest = Math.max(...bars.map((b) => doc.widthOfString(b.label)));
  // Day labels that would overlap are thinned out: every `every`-th is shown.
  const every = Math.max(1, Math.ceil((widest + 4) / slot));
  bars.forEach((bar, i) => {
    const center = plot.x + slot * (i + 0.5);
    const barHeight = (bar.seconds / top) * plot.height;
    if (barHeight > 0) doc.rect(center - barWidth / 2, base - barHeight, barWidth, barHeight).fill(COLOR.bar);
    doc.fillColor(COLOR.muted);
    if (i % every === 0) doc.text(bar.label, center - doc.widthOfString(bar.label) / 2, base + 3, { lineBreak: false });
    const value = barLabel(bar.seconds);
    if (bar.seconds > 0 && doc.widthOfString(value) + 2 <= slot) {
      doc.fillColor(COLOR.text).text(value, center - doc.widthOfString(value) / 2, base - barHeight - labelHeight + 2, { lineBreak: false });
    }
  });
}

export function pdfFile(table: ReportTable): AsyncIterable<Uint8Array> {
  const doc: Doc = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    // The table keeps its own bottom (FOOT); pdfkit's is the page's edge, so that it never breaks a page itself.
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: 0 },
    autoFirstPage: false,
    bufferPages: false,
    info: { Title: table.title, Creator: "workhub", Producer: "workhub" },
  });
  return bytesOf(
    doc,
    async (pace) => {
      const { columns } = table;
      checkColumns(columns);
      if (table.totals) checkRow(columns, table.totals);
      const { regular, bold } = fontData();
      doc.registerFont("regular", regular);
      doc.registerFont("bold", bold);
      const layout = new Layout(doc, table);
      layout.heading();
      for await (const values of table.rows) {
        checkRow(columns, values);
        layout.row(values);
        await pace();
      }
      if (table.totals) layout.row(table.totals, true);
      doc.end();
    },
    () => doc.readableLength > PACE_LIMIT_BYTES,
  );
}
