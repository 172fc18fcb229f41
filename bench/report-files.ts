import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { loadConfig } from "../lib/config.js";
import { Directory, serverInterceptors } from "../lib/directory.js";
import { createLogger } from "../lib/logger.js";
import { serveConnect } from "../lib/serve.js";
import { buildGateway } from "../gateway/server.js";
import { csvFile, detailedReportColumns, fileChunks, pdfFile, xlsxFile, type Cell, type ReportTable } from "../services/tracking/reports/formats/index.js";
import { testEnv } from "../test/support/harness.js";
import { fileContract, type FileRequest } from "../test/support/file-contract.js";

/**
 * `npm run bench:files`: a detailed report of BENCH_ROWS (100,000) generated time entries
 * written as CSV, XLSX and PDF by the report writers and streamed through the gateway as a file
 * answer, with the writing service in memory and over the network (Connect over HTTP/2), to a
 * client in this process that only counts the bytes. Prints per format and transport the size,
 * the time, and how much the process's memory (RSS) grew at its peak over what it was before
 * the download: a file that were held whole anywhere would show its size there. The bound is
 * 100 MiB. Each format is first written once small (1,000 rows), so that what is made once per
 * process (the PDF's font read and parsed, code compiled) is not counted as the big file's.
 * Growth is not only what is held: beside RSS the table shows the peak growth of V8's used heap,
 * garbage included (the PDF writer makes much of it; what lives long enough to reach the old
 * generation stays until a full collection, which is why the PDF writer keeps pdfkit's word
 * layouts to about a page's: see formats/pdf.ts).
 *
 * Environment: BENCH_ROWS (100000), BENCH_FORMATS (csv,xlsx,pdf).
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const FORMATS = (process.env.BENCH_FORMATS ?? "csv,xlsx,pdf").split(",");
const LIMIT_MIB = 100;

const WRITERS = { csv: csvFile, xlsx: xlsxFile, pdf: pdfFile } as const;
const pad = (n: number) => String(n).padStart(2, "0");
const clock = (s: number) => `${pad(Math.floor(s / 3600) % 24)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;

/** A generated time entry, as a detailed report's row: a few users, clients and projects, varied descriptions. */
function entry(i: number): Cell[] {
  const day = `2024-${pad(1 + ((i >> 12) % 12))}-${pad(1 + (i % 28))}`;
  const start = 8 * 3600 + (i % 17) * 900;
  const seconds = 600 + ((i * 7919) % 14_400);
  const description = i % 7 === 0 ? `Review of the quarterly plan with the team, notes and follow-ups #${i}` : `Ticket ${10_000 + i}: fix and test`;
  return [`User ${i % 25}`, `user${i % 25}@example.com`, i % 5 ? `Client ${i % 40}` : null, `Project ${i % 120}`, i % 3 ? null : `Task ${i % 9}`, description, i % 2 ? "Yes" : "No", day, clock(start), day, clock(start + seconds), seconds, i % 4 ? "" : "billable, urgent", i % 2 ? Math.round(seconds / 36) * 0.85 : null];
}

function table(rows: number): ReportTable {
  return {
    title: "Detailed report",
    subtitle: ["2024-01-01 – 2024-12-31", "Generated entries"],
    columns: detailedReportColumns("USD"),
    rows: (function* () {
      for (let i = 0; i < rows; i++) yield entry(i);
    })(),
    totals: ["Total", null, null, null, null, null, null, null, null, null, null, 0, null, 0],
    chart: Array.from({ length: 31 }, (_, d) => ({ label: `01-${pad(d + 1)}`, seconds: (d % 7) * 3600 })),
  };
}

const service = fileContract(
  Object.fromEntries(FORMATS.map((f) => [`Download${f.toUpperCase()}`, { route: { path: `/bench/report.${f}`, file: { contentType: "application/octet-stream", fileName: `report.${f}` } } }])),
);
const implementation = Object.fromEntries(
  FORMATS.map((f) => [
    `download${f.toUpperCase()}`,
    (req: FileRequest, _ctx: HandlerContext) => fileChunks(WRITERS[f as keyof typeof WRITERS](table(req.rows))),
  ]),
);

async function gateway(where: "in memory" | "over the network") {
  const config = loadConfig(testEnv());
  const routes = (router: ConnectRouter) => router.service(service, implementation as never);
  let directory = new Directory(config);
  let stopService = async () => undefined as void;
  if (where === "in memory") directory.registerLocal("tracking", routes);
  else {
    const served = await serveConnect({ routes, interceptors: serverInterceptors(config, createLogger("silent")), ready: async () => true, port: 0, host: "127.0.0.1" });
    stopService = () => served.close(100);
    directory = new Directory({ ...config, serviceUrls: { ...config.serviceUrls, tracking: `http://127.0.0.1:${served.port}` } });
  }
  const app = await buildGateway({ directory, log: createLogger("silent"), ready: async () => true, services: [service], trustProxy: false, timeouts: { serviceCallMs: 120_000 } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: async () => {
      await app.close();
      await stopService();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

console.log(`| format | service | rows | size MiB | seconds | rows/s | peak RSS growth MiB (bound ${LIMIT_MIB}) | peak heap growth MiB |`);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
let over = 0;
/** The whole file, counted and dropped. */
async function download(url: string, format: string, rows: number): Promise<number> {
  const res = await fetch(`${url}/bench/report.${format}?rows=${rows}`);
  if (res.status !== 200) throw new Error(`${format}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const part of res.body!) bytes += part.byteLength;
  return bytes;
}

for (const where of ["in memory", "over the network"] as const) {
  const { url, close } = await gateway(where);
  for (const format of FORMATS) await download(url, format, Math.min(ROWS, 1_000));
  for (const format of FORMATS) {
    const { rss: before, heapUsed: heapBefore } = process.memoryUsage();
    let [peak, heapPeak] = [before, heapBefore];
    const sample = () => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.rss);
      heapPeak = Math.max(heapPeak, now.heapUsed);
    };
    const sampler = setInterval(sample, 20);
    const started = performance.now();
    const bytes = await download(url, format, ROWS);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    sample();
    const grew = (peak - before) / 2 ** 20;
    if (grew > LIMIT_MIB) over++;
    const cells = [format, where, ROWS, (bytes / 2 ** 20).toFixed(2), seconds.toFixed(1), (ROWS / seconds).toFixed(0), `${grew.toFixed(1)}${grew > LIMIT_MIB ? " OVER" : ""}`, ((heapPeak - heapBefore) / 2 ** 20).toFixed(1)];
    console.log(`| ${cells.join(" | ")} |`);
  }
  await close();
}
console.log(over ? `${over} over the bound` : "every file within the bound");
