/**
 * Report files (CSV, XLSX, PDF) written from one table description (table.ts), each as an async
 * iterable of bytes that `fileChunks` turns into the FileChunk messages of a file answer.
 */
export { csvFile, type CsvOptions } from "./csv.js";
export { xlsxFile } from "./xlsx.js";
export { pdfFile } from "./pdf.js";
export { fileChunks, FILE_CHUNK_BYTES } from "./bytes.js";
export { detailedCsvHeaders, detailedReportColumns, formatDuration, type Cell, type ChartBar, type Column, type ColumnKind, type ReportTable } from "./table.js";
