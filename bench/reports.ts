import { readdirSync, readFileSync } from "node:fs";
import * as http from "node:http";
import { connectDatabase, type Knex } from "../lib/db.js";
import { benchAgent, compare, cpuCell, ROUNDS, rowBudget, startBenchSystem, tableLine, type ComparedPath, type Measurement } from "./measure.js";
import { cpuMs, log, rssMiB } from "./support.js";
import { Floor, type Range } from "./reports/floor.js";
import { CLIENTS, PROJECTS, seed, signup, TAGS, USERS, YEAR, YEAR_FROM, YEAR_TO } from "./reports/seed.js";

/**
 * `npm run bench:reports`: the Reports API v3 at scale. Starts the whole system (`cmd/start.ts`,
 * embedded defaults, or MySQL + NATS with MYSQL_URL/NATS_URL), seeds one workspace with
 * BENCH_ENTRIES (100,000) time entries over one year, 10 users, 50 projects, 10 clients and 20 tags
 * (bench/reports/seed.ts: directly into the tracking database in batches), and measures, through
 * the gateway (HTTP, the reports routes, the workspace owner's API token: an admin, who sees every
 * entry) and beside it the floor (bench/reports/floor.ts: SQL answering the same figures, grouped
 * in SQL, issued by knex in this process on the tracking database):
 *
 * - summary/time_entries grouping projects, sub-grouping users, over the whole year;
 * - search/time_entries: the first page of 50, and a page of 50 90% deep, once seeking (first_id,
 *   first_timestamp and first_row_number as the X-Next-* headers named them, fetched by walking the
 *   report in pages of 1000) and once by first_row_number alone (counted);
 * - search/time_entries/totals over the year;
 * - weekly/time_entries for one week;
 *
 * each after a warm-up and in rounds taken in turn with the floor (bench/measure.ts `compare`):
 * throughput, latency p50/p95/p99, CPU per request and the answering process's resident memory
 * (RSS) after the row: the system's for the gateway, this process's for the floor. Before it is
 * measured, each query's figures by both paths are compared (total seconds, tracked days, the
 * page's entries). Then the search/time_entries.csv export of the whole year, BENCH_ROUNDS times
 * taking turns with the floor's reading of the same rows (pages of 1000 by seeking, with the names
 * a line prints): rows per second; the CPU time of the answering process per run (the system's,
 * from /proc, or this one's for the floor) and rows per CPU second, the figures a shared machine
 * leaves steady; with MariaDB on this machine, its server's CPU time per run too; and the
 * answering process's RSS before the first run, after the last, and its largest growth at a peak
 * during a run (sampled every 20 ms).
 *
 * Environment: BENCH_ENTRIES (100000), BENCH_CONCURRENCY (8), BENCH_REQUESTS (1000 per row),
 * BENCH_SECONDS (15 per row at most), BENCH_ONLY (names of rows to run, comma-separated prefixes:
 * `summary,search,totals,weekly,csv`), BENCH_ROUNDS, BENCH_WARMUP_SECONDS.
 */

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ONLY = process.env.BENCH_ONLY?.split(",");
const picked = (name: string) => !ONLY || ONLY.some((prefix) => name.startsWith(prefix));

const YEAR_BODY = { start_date: `${YEAR}-01-01`, end_date: `${YEAR}-12-31` };
const WEEK = { from: new Date(Date.UTC(YEAR, 5, 2)), to: new Date(Date.UTC(YEAR, 5, 9)) };
const WEEK_BODY = { start_date: `${YEAR}-06-02` };
const YEAR_RANGE: Range = { from: YEAR_FROM, to: YEAR_TO };

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** POST of a JSON body on a loopback port; resolves with the status, headers and body. */
function post(agent: http.Agent, port: number, path: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", agent, headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(data) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(data);
  });
}

/** POST whose answer is counted (bytes and lines) and dropped, as a client saving a file would. */
function download(agent: http.Agent, port: number, path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; bytes: number; lines: number; text?: string }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", agent, headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(data) } }, (res) => {
      answered = true;
      let bytes = 0;
      let lines = 0;
      let head = "";
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        if (res.statusCode !== 200 && head.length < 300) head += c.toString("utf8");
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes, lines, text: head || undefined }));
      res.on("error", reject);
    });
    req.on("error", (err) => reject(Object.assign(err, { answered })));
    req.end(data);
  });
}

interface Row {
  query: string;
  path: string;
  /** What one answer holds (groups, rows), as a cell. */
  answer: string;
  m: Measurement;
  rss?: number;
}

interface ExportRow {
  path: string;
  runs: number;
  rows: number;
  mib: number;
  seconds: number[];
  /** CPU seconds of the answering process per run (the system's for the gateway, this one's for the floor). */
  cpuSeconds: number[];
  /** CPU seconds of the database server per run (a local MariaDB/MySQL server), when known. */
  dbCpuSeconds: number[];
  rssBefore?: number;
  rssAfter?: number;
  peakGrowth?: number;
}

const sum = (xs: Record<string, unknown>[], key = "seconds") => xs.reduce((total, r) => total + Number(r[key]), 0);
/** The pid of a MariaDB or MySQL server on this machine (its CPU time is read around each export), or undefined. */
function databaseServerPid(): number | undefined {
  for (const entry of readdirSync("/proc", { withFileTypes: true })) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (["mariadbd", "mysqld"].includes(readFileSync(`/proc/${entry.name}/comm`, "utf8").trim())) return Number(entry.name);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return undefined;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const sys = await startBenchSystem();
  const gw = sys.ports.gateway;
  const pid = sys.process.pid!;
  let accounts: Knex | undefined;
  let tracking: Knex | undefined;
  try {
    log(`reports bench: ${ENTRIES} entries, ${sys.mode}, concurrency ${CONCURRENCY}, ${rowBudget(REQUESTS, SECONDS)}`);
    const owner = await signup(gw, "owner");
    accounts = await connectDatabase(sys.config, "accounts");
    tracking = await connectDatabase(sys.config, "tracking");
    const loadStarted = Date.now();
    await seed(accounts, tracking, owner, ENTRIES);
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    const workspace = await accounts("workspaces").where({ id: owner.workspaceId }).first("default_hourly_rate");
    const floor = new Floor(tracking, owner.workspaceId, Number(workspace?.default_hourly_rate ?? 0));

    const auth = { authorization: `Basic ${Buffer.from(`${owner.token}:api_token`).toString("base64")}` };
    const base = `/reports/api/v3/workspace/${owner.workspaceId}`;
    const agent = benchAgent(CONCURRENCY);
    let shown = 0;
    /** The report's answer, or throws (for the checks before a row). */
    /**
     * The request, once more on a reset: after a round of the floor's synchronous queries (seconds
     * long on a busy machine) a request may go out on a kept-alive connection the gateway closed
     * meanwhile; it was never served, so it is no error of the report (the retry's time counts).
     */
    const send = (route: string, body: unknown) =>
      post(agent, gw, `${base}/${route}`, auth, body).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ECONNRESET") throw err;
        return post(agent, gw, `${base}/${route}`, auth, body);
      });
    const ask = async (route: string, body: unknown) => {
      const res = await send(route, body);
      if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.body.slice(0, 300)}`);
      return res;
    };
    /** One measured request: a failure counts as an error of its row; the first few are shown. */
    const ok = async (route: string, body: unknown) => {
      const started = performance.now();
      const res = await send(route, body).catch((err: Error) => ({ status: 0, headers: {}, body: err.message }));
      if (res.status !== 200 && shown++ < 5) log(`  failed after ${(performance.now() - started).toFixed(0)} ms: ${route} ${res.status} ${res.body.slice(0, 300)}`);
      return res.status === 200;
    };
    const checks: string[] = [];
    const agree = (query: string, what: string, gateway: unknown, direct: unknown) => {
      const same = JSON.stringify(gateway) === JSON.stringify(direct);
      checks.push(`${query}: ${what} ${same ? "agree" : "DIFFER"} (gateway ${JSON.stringify(gateway)}, floor ${JSON.stringify(direct)})`);
      if (!same) log(`  ${checks[checks.length - 1]}`);
    };

    const rows: Row[] = [];
    const run = async (query: string, route: string, body: unknown, direct: () => Promise<unknown>, answer: string) => {
      const paths: ComparedPath[] = [
        { path: "gateway (HTTP)", request: () => ok(route, body), serverPid: pid },
        // better-sqlite3 runs a query synchronously and knex chains the next through promises
        // alone: without a turn of the event loop after each, a round of slow queries (the
        // summary's, 100 ms each) would starve this process's timers and I/O for the whole round,
        // and the gateway's next round would send on keep-alive connections the gateway closed
        // meanwhile (after its 5 s keep-alive), failing at once with "socket hang up".
        { path: "floor (knex)", request: async () => (await direct(), await new Promise((resolve) => setImmediate(resolve)), true) },
      ];
      const measured = await compare(paths, REQUESTS, { concurrency: CONCURRENCY, seconds: SECONDS });
      // The rows of a comparison take turns, so each row's memory is read after the whole comparison.
      for (const { path, m } of measured) rows.push({ query, path, answer, m, rss: path.startsWith("gateway") ? rssMiB(pid) : process.memoryUsage().rss / 2 ** 20 });
      log(`  ${query}: ${rows.slice(-2).map((r) => `${r.path} ${r.m.rps.toFixed(1)} req/s`).join(", ")}`);
    };

    // Summary: projects, sub-grouped by users, the whole year.
    if (picked("summary")) {
      const body = { ...YEAR_BODY, grouping: "projects", sub_grouping: "users" };
      const answer = JSON.parse((await ask("summary/time_entries", body)).body) as { groups: { id: number | null; sub_groups: { seconds: number }[] }[] };
      const direct = await floor.summary(YEAR_RANGE);
      agree("summary", "seconds", answer.groups.reduce((t, g) => t + g.sub_groups.reduce((s, x) => s + x.seconds, 0), 0), sum(direct));
      agree("summary", "groups", answer.groups.length, new Set(direct.map((r) => r.g_key)).size);
      const subGroups = answer.groups.reduce((t, g) => t + g.sub_groups.length, 0);
      await run("summary, projects x users, year", "summary/time_entries", body, () => floor.summary(YEAR_RANGE), `${answer.groups.length} groups, ${subGroups} sub-groups`);
    }

    // The detailed report: the first page, and a page 90% deep (by seeking and by row number).
    if (picked("search")) {
      const firstBody = { ...YEAR_BODY, page_size: 50 };
      const first = JSON.parse((await ask("search/time_entries", firstBody)).body) as { time_entries: { id: number }[] }[];
      agree("first page", "entries", first.map((r) => r.time_entries[0].id), (await floor.page(YEAR_RANGE, 50)).slice(0, 50).map((r) => Number(r.id)));
      // Walked to the 90% row in pages of up to 1000, as a client follows the X-Next-* headers.
      const target = Math.floor(ENTRIES * 0.9) + 1;
      let next: { first_id: number; first_row_number: number; first_timestamp: number } | undefined;
      let walked = 0;
      for (;;) {
        const at = next?.first_row_number ?? 1;
        if (at >= target) break;
        const res = await ask("search/time_entries", { ...YEAR_BODY, ...(next ?? {}), page_size: Math.min(1000, target - at) });
        walked++;
        if (!res.headers["x-next-id"]) throw new Error(`the report ended at row ${at}, before row ${target}`);
        next = { first_id: Number(res.headers["x-next-id"]), first_row_number: Number(res.headers["x-next-row-number"]), first_timestamp: Number(res.headers["x-next-timestamp"]) };
      }
      if (!next) throw new Error("no deep page");
      log(`  walked to row ${next.first_row_number} in ${walked} requests`);
      const seekBody = { ...YEAR_BODY, ...next, page_size: 50 };
      const offsetBody = { ...YEAR_BODY, first_row_number: next.first_row_number, page_size: 50 };
      const seek = { start: new Date(next.first_timestamp * 1000), id: next.first_id };
      const offset = next.first_row_number - 1;
      const deep = JSON.parse((await ask("search/time_entries", seekBody)).body) as { time_entries: { id: number }[] }[];
      const deepByNumber = JSON.parse((await ask("search/time_entries", offsetBody)).body) as { time_entries: { id: number }[] }[];
      const deepFloor = (await floor.page(YEAR_RANGE, 50, { seek })).slice(0, 50).map((r) => Number(r.id));
      agree("90% deep page (seek)", "entries", deep.map((r) => r.time_entries[0].id), deepFloor);
      agree("90% deep page (first_row_number)", "entries", deepByNumber.map((r) => r.time_entries[0].id), (await floor.page(YEAR_RANGE, 50, { offset })).slice(0, 50).map((r) => Number(r.id)));
      await run("search, first page of 50", "search/time_entries", firstBody, () => floor.page(YEAR_RANGE, 50), `${first.length} rows`);
      await run(`search, 90% deep page of 50 (row ${next.first_row_number}), seek`, "search/time_entries", seekBody, () => floor.page(YEAR_RANGE, 50, { seek }), `${deep.length} rows`);
      await run(`search, 90% deep page of 50 (row ${next.first_row_number}), first_row_number only`, "search/time_entries", offsetBody, () => floor.page(YEAR_RANGE, 50, { offset }), `${deepByNumber.length} rows`);
    }

    if (picked("totals")) {
      const body = { ...YEAR_BODY };
      const answer = JSON.parse((await ask("search/time_entries/totals", body)).body) as { seconds: number; tracked_days: number; rates: { billable_seconds: number }[] };
      const direct = await floor.totals(YEAR_RANGE);
      agree("totals", "seconds", answer.seconds, sum(direct.days));
      agree("totals", "tracked days", answer.tracked_days, new Set(direct.days.filter((r) => Number(r.seconds) > 0).map((r) => Number(r.local_day))).size);
      agree("totals", "billable seconds", answer.rates.reduce((total, r) => total + r.billable_seconds, 0), sum(direct.sums.filter((r) => Number(r.is_billable))));
      await run("totals, year", "search/time_entries/totals", body, () => floor.totals(YEAR_RANGE), "1 object");
    }

    if (picked("weekly")) {
      const answer = JSON.parse((await ask("weekly/time_entries", WEEK_BODY)).body) as { seconds: number[] }[];
      const direct = await floor.weekly(WEEK);
      agree("weekly", "seconds", answer.reduce((t, r) => t + r.seconds.reduce((a, b) => a + b, 0), 0), sum(direct));
      agree("weekly", "rows", answer.length, new Set(direct.map((r) => `${r.w_user}|${r.w_project}`)).size);
      await run(`weekly, one week (${WEEK_BODY.start_date})`, "weekly/time_entries", WEEK_BODY, () => floor.weekly(WEEK), `${answer.length} rows`);
    }

    // The CSV export of the whole year, taking turns with the floor's reading of the same rows.
    const exports: ExportRow[] = [];
    if (picked("csv")) {
      const route = `${base}/search/time_entries.csv`;
      const gateway: ExportRow = { path: "gateway (HTTP)", runs: 0, rows: 0, mib: 0, seconds: [], cpuSeconds: [], dbCpuSeconds: [] };
      const direct: ExportRow = { path: "floor (knex)", runs: 0, rows: 0, mib: 0, seconds: [], cpuSeconds: [], dbCpuSeconds: [] };
      const dbPid = sys.config.mysqlUrl ? databaseServerPid() : undefined;
      // Once small first, so that what is made once per process (code compiled) is not counted.
      /** The download, once more on a reset before any answer (as `send`: a kept-alive connection the gateway closed meanwhile). */
      const fetchFile = (body: unknown) =>
        download(agent, gw, route, auth, body).catch((err: NodeJS.ErrnoException & { answered?: boolean }) => {
          if (err.code !== "ECONNRESET" || err.answered) throw err;
          return download(agent, gw, route, auth, body);
        });
      const warm = await fetchFile(WEEK_BODY);
      if (warm.status !== 200) throw new Error(`csv: ${warm.status} ${warm.text}`);
      await floor.exportRows(WEEK);
      const benchCpuMs = () => {
        const used = process.cpuUsage();
        return (used.user + used.system) / 1000;
      };
      /** Runs `once` with the RSS of `rss` sampled every 20 ms and the CPU time of `cpu` (ms) read around it; adds its figures to `row`. */
      const timed = async (row: ExportRow, rss: () => number | undefined, cpu: () => number | undefined, once: () => Promise<{ rows: number; bytes: number }>) => {
        const before = rss();
        let peak = before ?? 0;
        const sampler = setInterval(() => (peak = Math.max(peak, rss() ?? 0)), 20);
        const cpuBefore = cpu();
        const dbBefore = dbPid === undefined ? undefined : cpuMs(dbPid);
        const started = performance.now();
        const got = await once();
        row.seconds.push((performance.now() - started) / 1000);
        const cpuAfter = cpu();
        const dbAfter = dbPid === undefined ? undefined : cpuMs(dbPid);
        if (cpuBefore !== undefined && cpuAfter !== undefined) row.cpuSeconds.push((cpuAfter - cpuBefore) / 1000);
        if (dbBefore !== undefined && dbAfter !== undefined) row.dbCpuSeconds.push((dbAfter - dbBefore) / 1000);
        clearInterval(sampler);
        const after = rss();
        peak = Math.max(peak, after ?? 0);
        row.runs++;
        row.rows = got.rows;
        row.mib = got.bytes / 2 ** 20;
        row.rssBefore ??= before;
        row.rssAfter = after;
        if (before !== undefined) row.peakGrowth = Math.max(row.peakGrowth ?? 0, peak - before);
      };
      for (let round = 0; round < ROUNDS; round++) {
        await timed(gateway, () => rssMiB(pid), () => cpuMs(pid), async () => {
          const got = await fetchFile(YEAR_BODY);
          if (got.status !== 200) throw new Error(`csv: ${got.status} ${got.text}`);
          // A header line, then a line per row.
          return { rows: got.lines - 1, bytes: got.bytes };
        });
        await timed(direct, () => process.memoryUsage().rss / 2 ** 20, benchCpuMs, async () => ({ rows: await floor.exportRows(YEAR_RANGE), bytes: 0 }));
        log(`    round ${round + 1}: gateway ${gateway.seconds[round].toFixed(2)} s (CPU ${gateway.cpuSeconds[round]?.toFixed(2) ?? "n/a"} s), floor ${direct.seconds[round].toFixed(2)} s (CPU ${direct.cpuSeconds[round]?.toFixed(2) ?? "n/a"} s)`);
      }
      agree("csv export", "rows", gateway.rows, direct.rows);
      exports.push(gateway, direct);
    }
    agent.destroy();

    const out: string[] = [];
    out.push(
      `reports, one workspace with ${ENTRIES} time entries over ${YEAR} (${USERS} users, ${PROJECTS} projects, ${CLIENTS} clients, ${TAGS} tags; loaded in ${loadSeconds.toFixed(1)} s), ${sys.mode}, caller an admin, concurrency ${CONCURRENCY}, ${rowBudget(REQUESTS, SECONDS)}, in ${ROUNDS} rounds taken in turn with the other path`,
    );
    out.push(tableLine(["query", "path", "answer", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors", "server CPU ms/req", "bench CPU ms/req", "RSS MiB"]));
    out.push(tableLine(["---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]));
    for (const r of rows) {
      out.push(tableLine([r.query, r.path, r.answer, String(r.m.requests), r.m.rps.toFixed(1), r.m.p50.toFixed(2), r.m.p95.toFixed(2), r.m.p99.toFixed(2), String(r.m.errors), cpuCell(r.m.serverCpu), cpuCell(r.m.benchCpu), r.rss === undefined ? "n/a" : r.rss.toFixed(0)]));
    }
    out.push("");
    out.push("RSS: the answering process's resident memory after the row (gateway: the system's one process, every service in it; floor: the bench process).");
    const find = (prefix: string, path: string) => rows.find((r) => r.query.startsWith(prefix) && r.path.startsWith(path))?.m;
    for (const query of [...new Set(rows.map((r) => r.query))]) {
      const [g, f] = [find(query, "gateway"), find(query, "floor")];
      if (g && f) out.push(`gateway / floor, ${query}: by throughput ${((g.rps / f.rps) * 100).toFixed(0)}%, by p50 ${(g.p50 / f.p50).toFixed(1)}x`);
    }
    const first = find("search, first page", "gateway");
    for (const how of ["seek", "first_row_number only"]) {
      const deep = rows.find((r) => r.query.startsWith("search, 90% deep") && r.query.endsWith(how) && r.path.startsWith("gateway"))?.m;
      const [firstFloor, deepFloor] = [find("search, first page", "floor"), rows.find((r) => r.query.startsWith("search, 90% deep") && r.query.endsWith(how) && r.path.startsWith("floor"))?.m];
      if (first && deep) {
        const floorRatio = firstFloor && deepFloor ? `; floor: by p50 ${(deepFloor.p50 / firstFloor.p50).toFixed(2)}` : "";
        out.push(`deep / first page cost (${how}), gateway: by throughput ${(first.rps / deep.rps).toFixed(2)}, by p50 ${(deep.p50 / first.p50).toFixed(2)}${floorRatio}`);
      }
    }
    if (exports.length) {
      out.push("");
      out.push(`search/time_entries.csv, the whole year (${YEAR_BODY.start_date} to ${YEAR_BODY.end_date}), ${ROUNDS} runs each taken in turn; CPU time and RSS of the answering process (gateway: the system's, every service in it; floor: the bench's): CPU seconds per run (median) and rows per CPU second (all runs), the local database server's CPU seconds per run (median; MariaDB, n/a embedded), RSS before the first run, after the last, and its largest growth at a peak during a run (sampled every 20 ms)`);
      out.push(tableLine(["export", "path", "runs", "rows", "MiB", "seconds (median)", "rows/s", "CPU s (median)", "rows/CPU s", "DB CPU s (median)", "RSS before MiB", "RSS after MiB", "peak RSS growth MiB"]));
      out.push(tableLine(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]));
      const mib = (v: number | undefined) => (v === undefined ? "n/a" : v.toFixed(0));
      for (const e of exports) {
        const rowsPerSecond = (e.rows * e.runs) / e.seconds.reduce((a, b) => a + b, 0);
        const cpuKnown = e.cpuSeconds.length === e.runs;
        const rowsPerCpuSecond = cpuKnown ? ((e.rows * e.runs) / e.cpuSeconds.reduce((a, b) => a + b, 0)).toFixed(0) : "n/a";
        out.push(
          tableLine([
            "csv, year",
            e.path,
            String(e.runs),
            String(e.rows),
            e.path.startsWith("floor") ? "-" : e.mib.toFixed(2),
            median(e.seconds).toFixed(2),
            rowsPerSecond.toFixed(0),
            cpuKnown ? median(e.cpuSeconds).toFixed(2) : "n/a",
            rowsPerCpuSecond,
            e.dbCpuSeconds.length === e.runs ? median(e.dbCpuSeconds).toFixed(2) : "n/a",
            mib(e.rssBefore),
            mib(e.rssAfter),
            mib(e.peakGrowth),
          ]),
        );
      }
    }
    out.push("");
    out.push(`figures compared before measuring: ${checks.every((c) => c.includes(" agree ")) ? "all agree" : "SOME DIFFER"}`);
    for (const c of checks) out.push(`- ${c.length > 240 ? `${c.slice(0, 240)}...` : c}`);
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    await accounts?.destroy();
    await tracking?.destroy();
    await sys.stop();
  }
}

await main();
