import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { connectDatabase } from "../lib/db.js";
import { WORKSPACE_OBJECTS } from "../services/tracking/exports/rules.js";
import { DETAILED_CSV_FILE, TIME_ENTRIES_DIR } from "../services/tracking/portability/layout.js";
import { startBenchSystem, tableLine, type BenchSystem } from "./measure.js";
import { seed, signup } from "./reports/seed.js";
import { cpuMs, log, rssMiB } from "./support.js";
import { importSection } from "./portability-import.js";

/**
 * `npm run bench:portability`: data in and out at scale, on the whole system in its own process
 * (`cmd/start.ts`; embedded defaults, or MySQL + NATS with MYSQL_URL/NATS_URL). BENCH_ONLY names
 * the sections to run (`export`, `import`; all by default).
 *
 * export: a workspace of BENCH_EXPORT_ENTRIES (100,000) time entries over a year, 10 users, 50
 * projects, 10 clients, 20 tags (bench/reports/seed.ts, written with knex into the tracking
 * database), exported whole (every object name) through the gateway as its admin: from the
 * request to the job's `done`, followed by polling the download records. Prints entries per second
 * (the bound is 20,000) and the system's resident memory (RSS) before and its largest growth
 * during the export (sampled every 20 ms; the bound is 150 MiB); then downloads the ZIP and
 * counts the entries in its JSON files and CSV rows, which must be all of them. Beside the wall
 * time it prints the system process's CPU time during the export, a figure other load on the
 * machine does not change (with MySQL the database server's own CPU is not in it).
 */

const ONLY = process.env.BENCH_ONLY?.split(",");
const picked = (name: string) => !ONLY || ONLY.includes(name);

const EXPORT_ENTRIES = Number(process.env.BENCH_EXPORT_ENTRIES ?? 100_000);
const MIN_EXPORT_RATE = 20_000;
const MAX_GROWTH_MIB = 150;

const basic = (token: string) => `Basic ${Buffer.from(`${token}:api_token`).toString("base64")}`;

async function api(port: number, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: basic(token), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Entries in the ZIP's per-year JSON files and rows of its CSV, read entry by entry from the file. */
async function countEntries(file: string): Promise<{ json: number; csvRows: number }> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z!))));
  let json = 0;
  let csvRows = -1; // the header
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      const wanted = entry.fileName.startsWith(TIME_ENTRIES_DIR) || entry.fileName === DETAILED_CSV_FILE;
      if (!wanted) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const parts: Buffer[] = [];
        stream!.on("data", (p: Buffer) => parts.push(p));
        stream!.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          if (entry.fileName === DETAILED_CSV_FILE) csvRows += text.split("\n").filter(Boolean).length;
          else json += (JSON.parse(text) as unknown[]).length;
          zip.readEntry();
        });
      });
    });
    zip.on("end", resolve);
    zip.on("error", reject);
    zip.readEntry();
  });
  return { json, csvRows };
}

async function exportSection(system: BenchSystem): Promise<void> {
  const port = system.ports.gateway;
  const pid = system.process.pid!;
  const owner = await signup(port, "exporter");
  const accounts = await connectDatabase(system.config, "accounts");
  const tracking = await connectDatabase(system.config, "tracking");
  try {
    log(`export: seeding ${EXPORT_ENTRIES} time entries`);
    await seed(accounts, tracking, owner, EXPORT_ENTRIES);
  } finally {
    await accounts.destroy();
    await tracking.destroy();
  }
  const base = `/api/v9/workspaces/${owner.workspaceId}/exports`;
  const before = rssMiB(pid) ?? 0;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid) ?? 0)), 20);
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  const token = (await api(port, owner.token, "POST", base, [...WORKSPACE_OBJECTS])) as string;
  let state = "pending";
  let error = "";
  while (state === "pending" || state === "running") {
    await new Promise((r) => setTimeout(r, 50));
    const records = (await api(port, owner.token, "GET", base)) as { token: string; state: string; error_message: string }[];
    ({ state, error_message: error } = records.find((r) => r.token === token)!);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuMs(pid);
  // The system's CPU time: what the export costs whatever else the machine runs (the database server's own, with MySQL, not counted).
  const cpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000;
  clearInterval(sampler);
  if (state !== "done") throw new Error(`export ${state}: ${error}`);

  const dir = mkdtempSync(join(tmpdir(), "workhub-export-"));
  try {
    const file = join(dir, "export.zip");
    const res = await fetch(`http://127.0.0.1:${port}${base}/data/${token}.zip`, { headers: { authorization: basic(owner.token) } });
    if (res.status !== 200 || !res.body) throw new Error(`download: ${res.status}`);
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
    let bytes = 0;
    for await (const part of createReadStream(file)) bytes += (part as Buffer).length;
    const counted = await countEntries(file);
    const rate = EXPORT_ENTRIES / seconds;
    const growth = peak - before;
    process.stdout.write(
      [
        "",
        `export (${system.mode})`,
        "",
        tableLine(["entries", "seconds", "entries/s (>= 20,000)", "system CPU s", "entries per CPU s", "ZIP MiB", "entries in JSON", "CSV rows", "RSS before MiB", "RSS peak growth MiB (<= 150)"]),
        tableLine(Array(10).fill("---")),
        tableLine([
          String(EXPORT_ENTRIES),
          seconds.toFixed(2),
          `${Math.round(rate)} ${rate >= MIN_EXPORT_RATE ? "ok" : "BELOW"}`,
          cpuSeconds === undefined ? "n/a" : cpuSeconds.toFixed(2),
          cpuSeconds === undefined ? "n/a" : String(Math.round(EXPORT_ENTRIES / cpuSeconds)),
          (bytes / 1024 / 1024).toFixed(1),
          String(counted.json),
          String(counted.csvRows),
          before.toFixed(0),
          `${growth.toFixed(0)} ${growth <= MAX_GROWTH_MIB ? "ok" : "OVER"}`,
        ]),
        "",
      ].join("\n"),
    );
    if (counted.json !== EXPORT_ENTRIES || counted.csvRows !== EXPORT_ENTRIES) throw new Error(`the ZIP holds ${counted.json} JSON entries and ${counted.csvRows} CSV rows of ${EXPORT_ENTRIES}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const system = await startBenchSystem();
try {
  if (picked("export")) await exportSection(system);
  // import: bench/portability-import.ts (BENCH_IMPORT_ENTRIES).
  if (picked("import")) await importSection(system);
} finally {
  await system.stop();
}
