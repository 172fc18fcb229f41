import { stringify } from "csv-stringify";
import { bytesOf, PACE_LIMIT_BYTES } from "./bytes.js";
import { checkColumns, checkRow, formatDuration, type Cell, type Column, type ReportTable } from "./table.js";

export interface CsvOptions {
  /** Writes the table's totals as a last row (the real detailed CSV has none). */
  totals?: boolean;
  /** Starts with a UTF-8 byte order mark (what makes spreadsheet programs read UTF-8). */
  bom?: boolean;
}

/** A cell as the real service writes it in CSV: durations `HH:MM:SS`, amounts with two decimals, dates and times as they are. */
function csvValue(column: Column, value: Cell): string | number {
  if (value === null) return "";
  switch (column.kind) {
    case "duration":
      return formatDuration(value as number);
    case "money":
      return (value as number).toFixed(2);
    default:
      return value;
  }
}

/**
 * The table as CSV (RFC 4180, `\n` line ends): the header row, then the rows as they come, one
 * write per row. Title, subtitle and chart have no place in CSV. A value that a spreadsheet
 * would run as a formula (`=`, `+`, `-`, `@` first) is prefixed with `'`.
 */
export function csvFile(table: ReportTable, options: CsvOptions = {}): AsyncIterable<Uint8Array> {
  const { columns } = table;
  const stringifier = stringify({ bom: options.bom ?? false, escape_formulas: true });
  return bytesOf(
    stringifier,
    async (pace) => {
      checkColumns(columns);
      stringifier.write(columns.map((c) => c.header));
      for await (const row of table.rows) {
        checkRow(columns, row);
        stringifier.write(row.map((value, i) => csvValue(columns[i], value)));
        await pace();
      }
      if (options.totals && table.totals) {
        checkRow(columns, table.totals);
        stringifier.write(table.totals.map((value, i) => csvValue(columns[i], value)));
      }
      stringifier.end();
    },
    // Its writable side counts rows, not bytes: it asks for a drain once its rows wait.
    () => stringifier.writableNeedDrain || stringifier.readableLength > PACE_LIMIT_BYTES,
  );
}
