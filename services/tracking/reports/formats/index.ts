/**
 * Report files (CSV, XLSX, PDF) written from one table description (table.ts), each as an async
 * iterable of bytes that `fileChunks` turns into the FileChunk messages of a file answer.
 */
export { csvFile, type CsvOptions } from "./csv.js";
export { xlsxFile } from "./xlsx.js";
export { pdfFile } from "./pdf.js";
export { fileChunks, FILE_CHUNK_BYTES } from "./bytes.js";
import { fileChunks } from "./bytes.js";
import { csvFile } from "./csv.js";
import { pdfFile } from "./pdf.js";
import type { ReportTable } from "./table.js";
import { xlsxFile } from "./xlsx.js";

export type FileFormat = "csv" | "xlsx" | "pdf";

const WRITERS: Record<FileFormat, (table: ReportTable) => AsyncIterable<Uint8Array>> = { csv: (table) => csvFile(table), xlsx: xlsxFile, pdf: pdfFile };

/** A table as a file answer's chunks in one format, the first chunk naming the file. */
export const fileOfTable = (format: FileFormat, table: ReportTable, fileName: string) => fileChunks(WRITERS[format](table), fileName);
export { detailedCsvHeaders, detailedReportColumns, formatDuration, type Cell, type ChartBar, type Column, type ColumnKind, type ReportTable } from "./table.js";
