import { connectDatabase, isMysql, type Knex } from "../../lib/db.js";
import { benchAgent, compare, cpuCell, gatewayShare, httpGet, httpSend, ROUNDS, rowBudget, tableLine, type ComparedPath, type Measurement } from "../measure.js";
import { log, startProcess, stopProcess } from "../support.js";
import { userEntries } from "../../services/tracking/time-entries/store.js";
import type { TrackingBench, TrackingSection } from "./section.js";

/** The row of start-then-stop pairs (its target is 60%, the reads' 80%). */
const PAIR = "start-then-stop pair";

/**
 * The time entries section of `npm run bench:tracking` (alone: `BENCH_ONLY=time-entries npm run bench:tracking`):
 * one user with BENCH_TIME_ENTRIES (100,000) entries over three years, written directly into the
 * tracking schema in bulk; then, through the gateway and for the same query by a bare server
 * (bench/tracking/time-entries-bare.ts: the same table queries, rows written as JSON, no gateway,
 * RPC, authentication or message building), throughput and p50/p99 of: a month by
 * start_date/end_date late in the history and early in it, `since` an hour ago, `current`, and
 * start-then-stop pairs (POST a running entry, PATCH its stop). Beside each month, its floor: the
 * same rows read in this process by the same driver and SQL, written with JSON.stringify.
 *
 * Start-then-stop pairs run one at a time (one user has one timer). Environment: BENCH_TIME_ENTRIES
 * (100000), BENCH_READS (names of rows to run, comma-separated prefixes: `since,current,start`), and the
 * runner's concurrency, requests and seconds per row.
 */

const ENTRIES = Number(process.env.BENCH_TIME_ENTRIES ?? 100_000);
const DAY = 86_400_000;
const YEARS = 3;

/** Rows of `ENTRIES` stopped 10-minute entries spread evenly over the three years before `now`. */
async function load(db: Knex, workspaceId: number, userId: number, now: number): Promise<void> {
  const first = now - YEARS * 365 * DAY;
  const step = (now - DAY - first) / ENTRIES;
  const chunk = 1000;
  for (let from = 0; from < ENTRIES; from += chunk) {
    const rows: Record<string, unknown>[] = [];
    for (let i = from; i < Math.min(from + chunk, ENTRIES); i++) {
      const start = new Date(Math.floor((first + i * step) / 1000) * 1000);
      const stop = new Date(start.getTime() + 600_000);
      rows.push({
        workspace_id: workspaceId, user_id: userId, project_id: null, task_id: null, description: `entry ${i}`, billable: false,
        start, stop, duration: 600, running_user_id: null, tag_ids: "[]", shared_with_user_ids: "[]", created_with: "bench",
        created_at: stop, at: stop, server_deleted_at: null,
      });
    }
    // SQLite takes at most 500 rows in one INSERT ... SELECT UNION ALL.
    await db.transaction((trx) => trx.batchInsert("time_entries", rows, 400));
    if ((from + chunk) % 20_000 === 0) log(`  loaded ${from + chunk}/${ENTRIES} time entries`);
  }
  if (!isMysql(db)) await db.raw("ANALYZE");
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Row {
  scenario: string;
  path: string;
  m: Measurement;
}

async function run({ sys: system, concurrency: CONCURRENCY, requests: REQUESTS, seconds: SECONDS }: TrackingBench): Promise<string[]> {
  const gw = system.ports.gateway;
  const signup = await fetch(`http://127.0.0.1:${gw}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `timer${Date.now()}@example.com`, password: "correct horse battery", timezone: "UTC" }),
  });
  if (!signup.ok) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const user = (await signup.json()) as { id: number; api_token: string; default_workspace_id: number };
  const ws = user.default_workspace_id;
  const auth = { authorization: `Basic ${Buffer.from(`${user.api_token}:api_token`).toString("base64")}` };
  const now = Date.now();
  const db = await connectDatabase(system.config, "tracking");
  const bareProcess = await (async () => {
    log(`time entries bench: ${ENTRIES} entries over ${YEARS} years, ${system.mode}, concurrency ${CONCURRENCY}`);
    await load(db, ws, user.id, now);
    return startProcess("bench/tracking/time-entries-bare.ts", { ...system.env, BARE_PORT: String(system.ports.bare), BARE_USER: String(user.id), BARE_WORKSPACE: String(ws) }, `http://127.0.0.1:${system.ports.bare}/current`);
  })();
  const rows: Row[] = [];
  try {
    const agent = benchAgent(CONCURRENCY);
    const send = (port: number, method: string, path: string, body?: unknown) => httpSend(agent, port, method, path, auth, body);
    // A failure counts as an error of its row; the first few are shown, to say what failed.
    let shown = 0;
    const succeeded = (res: { status: number; body: string }) => {
      if (res.status !== 200 && shown++ < 5) log(`  failed: ${res.status} ${res.body.slice(0, 300)}`);
      return res.status === 200;
    };
    const ok = async (p: Promise<{ status: number; body: string }>) => succeeded(await p.catch((err: Error) => ({ status: 0, body: err.message })));
    const lateFrom = day(now - 60 * DAY);
    const lateTo = day(now - 30 * DAY);
    const earlyFrom = day(now - YEARS * 365 * DAY + 10 * DAY);
    const earlyTo = day(now - YEARS * 365 * DAY + 40 * DAY);
    const since = Math.floor((now - 3600_000) / 1000);
    // Something runs for `current`: started through the API, as a client would.
    const started = await send(gw, "POST", `/api/v9/workspaces/${ws}/time_entries`, { created_with: "bench", start: new Date(now).toISOString().slice(0, 19) + "Z" });
    if (started.status !== 200) throw new Error(`start: ${started.status} ${started.body}`);
    /**
     * The floor of a month: its rows read in this process by the same driver with the SQL the
     * service runs (the store's userEntries and the handler's filters), written with JSON.stringify
     * as they come; a turn of the event loop after each, as the reports bench's floor takes.
     */
    const monthFloor = (from: string, to: string) => async () => {
      const rows = await userEntries(db, BigInt(user.id)).whereNull("server_deleted_at").where("start", ">=", new Date(`${from}T00:00:00Z`)).where("start", "<", new Date(`${to}T00:00:00Z`));
      JSON.stringify(rows);
      await new Promise((resolve) => setImmediate(resolve));
      return rows.length;
    };
    const reads: [string, string, string, (() => Promise<number>)?][] = [
      ["month, late in the history", `/api/v9/me/time_entries?start_date=${lateFrom}&end_date=${lateTo}`, `/range?from=${lateFrom}T00:00:00Z&to=${lateTo}T00:00:00Z`, monthFloor(lateFrom, lateTo)],
      ["month, early in the history", `/api/v9/me/time_entries?start_date=${earlyFrom}&end_date=${earlyTo}`, `/range?from=${earlyFrom}T00:00:00Z&to=${earlyTo}T00:00:00Z`, monthFloor(earlyFrom, earlyTo)],
      ["since an hour ago", `/api/v9/me/time_entries?since=${since}`, `/since?since=${since}`],
      ["current", "/api/v9/me/time_entries/current", "/current"],
    ];
    const only = process.env.BENCH_READS?.split(",");
    const picked = (scenario: string) => !only || only.some((name) => scenario.startsWith(name));
    for (const [scenario, gwPath, barePath, floor] of reads.filter(([scenario]) => picked(scenario))) {
      const check = await httpGet(agent, gw, gwPath, auth);
      if (check.status !== 200) throw new Error(`${gwPath}: ${check.status} ${check.body.slice(0, 200)}`);
      const entries = Array.isArray(JSON.parse(check.body)) ? (JSON.parse(check.body) as unknown[]).length : 1;
      const paths: ComparedPath[] = [
        { path: "gateway (HTTP)", request: () => ok(httpGet(agent, gw, gwPath, auth)), serverPid: system.process.pid },
        { path: "bare server (HTTP)", request: () => ok(httpGet(agent, system.ports.bare, barePath, {})), serverPid: bareProcess.pid },
      ];
      if (floor) {
        const floorRows = await floor();
        if (floorRows !== entries) throw new Error(`${scenario}: the floor reads ${floorRows} rows, the gateway answers ${entries}`);
        // Its CPU is this process's: the load loop's share is in it too, as small as it gets.
        paths.push({ path: "floor (knex, JSON.stringify)", request: async () => (await floor(), true), serverPid: process.pid });
      }
      for (const { path, m } of await compare(paths, REQUESTS, { concurrency: CONCURRENCY, seconds: SECONDS })) rows.push({ scenario, path, m });
      log(`  ${scenario} (${entries} entries): ${rows.slice(-paths.length).map((r) => `${r.path} ${r.m.rps.toFixed(0)} req/s`).join(", ")}`);
    }
    // Pairs: one user's timer, so one pair at a time (a start stops the one that runs).
    const pairs: ComparedPath[] = [
      {
        path: "gateway (HTTP)",
        request: async () => {
          const s = await send(gw, "POST", `/api/v9/workspaces/${ws}/time_entries`, { created_with: "bench", start: new Date().toISOString().slice(0, 19) + "Z" });
          if (!succeeded(s)) return false;
          return ok(send(gw, "PATCH", `/api/v9/workspaces/${ws}/time_entries/${JSON.parse(s.body).id}/stop`));
        },
        serverPid: system.process.pid,
      },
      {
        path: "bare server (HTTP)",
        request: async () => {
          const s = await send(system.ports.bare, "POST", "/start");
          return succeeded(s) && ok(send(system.ports.bare, "PATCH", `/stop/${JSON.parse(s.body).id}`));
        },
        serverPid: bareProcess.pid,
      },
    ];
    if (picked(PAIR)) for (const { path, m } of await compare(pairs, REQUESTS, { concurrency: 1, seconds: SECONDS })) rows.push({ scenario: PAIR, path, m });
    agent.destroy();
  } finally {
    await stopProcess(bareProcess);
    await db.destroy();
  }

  const out: string[] = [];
  out.push(`time entries, one user with ${ENTRIES} entries over ${YEARS} years, ${system.mode}, concurrency ${CONCURRENCY} (pairs: 1), ${rowBudget(REQUESTS, SECONDS)}, in ${ROUNDS} rounds taken in turn with the other path`);
  out.push(tableLine(["query", "path", "requests", "req/s", "p50 ms", "p99 ms", "errors", "server CPU ms/req", "bench CPU ms/req"]));
  out.push(tableLine(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]));
  for (const r of rows) {
    out.push(tableLine([r.scenario, r.path, String(r.m.requests), r.m.rps.toFixed(0), r.m.p50.toFixed(2), r.m.p99.toFixed(2), String(r.m.errors), cpuCell(r.m.serverCpu), cpuCell(r.m.benchCpu)]));
  }
  out.push("");
  const find = (scenario: string, path: string) => rows.find((r) => r.scenario === scenario && r.path.startsWith(path))?.m;
  for (const scenario of [...new Set(rows.map((r) => r.scenario))]) {
    const [g, b] = [find(scenario, "gateway"), find(scenario, "bare")];
    if (!g || !b) continue;
    out.push(gatewayShare(scenario, g, b, scenario === PAIR ? 60 : 80));
  }
  for (const scenario of [...new Set(rows.map((r) => r.scenario))]) {
    const [g, f] = [find(scenario, "gateway"), find(scenario, "floor")];
    if (!g || !f) continue;
    // CPU is read off /proc in clock ticks: a short run (the suite's) may read none for one side.
    const byCpu = g.serverCpu && f.serverCpu ? `${(g.serverCpu / f.serverCpu).toFixed(2)}x` : "n/a (too short to read)";
    out.push(`gateway / floor, ${scenario}: server CPU per request ${byCpu} (target <= 2x), by throughput ${((g.rps / f.rps) * 100).toFixed(0)}%`);
  }
  const [late, early] = [find("month, late in the history", "gateway"), find("month, early in the history", "gateway")];
  if (late && early) {
    const byCpu = late.serverCpu && early.serverCpu ? `, by server CPU per request: ${(late.serverCpu / early.serverCpu).toFixed(2)}` : "";
    out.push(`late month cost / early month cost (gateway): by throughput ${(early.rps / late.rps).toFixed(2)}, by p50 ${(late.p50 / early.p50).toFixed(2)}${byCpu} (target <= 1.5)`);
  }
  return out;
}

export const timeEntriesSection: TrackingSection = { name: "time-entries", run };
