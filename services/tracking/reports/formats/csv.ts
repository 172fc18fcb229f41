import { stringify } from "csv-stringify/sync";
import { FILE_CHUNK_BYTES } from "./bytes.js";
import { checkColumns, checkRow, formatDuration, type Cell, type ColumnKind, type ReportTable } from "./table.js";

export interface CsvOptions {
  /** Writes the table's totals as a last row (the real detailed CSV has none). */
  totals?: boolean;
  /** Starts with a UTF-8 byte order mark (what makes spreadsheet programs read UTF-8). */
  bom?: boolean;
}

/**
 * The options csv-stringify writes every field with: RFC 4180 quoting (a field holding a comma,
 * a quote or a line break is quoted, its quotes doubled), and a value that a spreadsheet would
 * run as a formula (`=`, `+`, `-`, `@`, a tab or carriage return first, or their full-width forms)
 * prefixed with `'`. A field is written alike whatever the other fields of its record.
 */
const STRINGIFY = { escape_formulas: true, eof: false } as const;

/** A string csv-stringify writes as it is (with STRINGIFY): no first character it guards, none it quotes for. */
const PLAIN = /^(?:[^-=+@\t\r\n,"\uFF1D\uFF0B\uFF0D\uFF20][^,"\r\n]*)?$/;

/** The library's fields of texts that are not plain, by text: such texts repeat (a list of tags, a name with a comma). */
const guarded = new Map<string, string>();

/** A text field as csv-stringify writes it: the library decides wherever the text is not plain. */
function textField(text: string): string {
  if (PLAIN.test(text)) return text;
  let field = guarded.get(text);
  if (field === undefined) {
    field = stringify([[text]], STRINGIFY);
    if (guarded.size >= 10_000) guarded.clear();
    // Long texts (descriptions) seldom repeat: not kept.
    if (text.length <= 200) guarded.set(text, field);
  }
  return field;
}

/**
 * How each kind's value is written, as the real service writes it in CSV (durations `HH:MM:SS`,
 * amounts with two decimals, dates and times as they are) and as csv-stringify would quote it.
 * Dates and times are plain (checkRow holds them to their forms); durations and amounts are plain
 * unless negative (then the library guards the `-`); numbers are never guarded or quoted (the
 * library writes a number field as `"" + value`).
 */
const FIELDS: Record<ColumnKind, (value: string | number) => string> = {
  text: (value) => textField(value as string),
  date: (value) => value as string,
  time: (value) => value as string,
  duration: (value) => textField(formatDuration(value as number)),
  money: (value) => textField((value as number).toFixed(2)),
  number: (value) => `${value}`,
};

/**
 * The table as CSV (RFC 4180, `\n` line ends, a line end after the last row): the header row,
 * then the rows as they come, each a line made at once by its columns' ways of writing, the
 * lines gathered into pieces of at least FILE_CHUNK_BYTES (one FileChunk message each), each
 * made when the reader asks for it, the event loop let turn between two. Title, subtitle and
 * chart have no place in CSV. The bytes are what csv-stringify's stream (`escape_formulas`), the
 * writer before, made of the same rows (test/report-csv.test.ts compares them), at a fraction of
 * its cost per row: no stream, no record options read per field, plain texts as they are.
 */
export async function* csvFile(table: ReportTable, options: CsvOptions = {}): AsyncGenerator<Uint8Array> {
  const { columns } = table;
  checkColumns(columns);
  const fields = columns.map((c) => FIELDS[c.kind]);
  const line = (row: Cell[]) => {
    let text = "";
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      if (i > 0) text += ",";
      if (value !== null) text += fields[i](value);
    }
    return `${text}\n`;
  };
  let text = `${options.bom ? "\uFEFF" : ""}${columns.map((c) => textField(c.header)).join(",")}\n`;
  for await (const row of table.rows) {
    checkRow(columns, row);
    text += line(row);
    // Characters: at least as many bytes in UTF-8.
    if (text.length >= FILE_CHUNK_BYTES) {
      yield Buffer.from(text);
      text = "";
      // The event loop turns between two pieces: other requests are served while a long file is written.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (options.totals && table.totals) {
    checkRow(columns, table.totals);
    text += line(table.totals);
  }
  if (text) yield Buffer.from(text);
}
