import * as http from "node:http";
import { benchListQuery, log, rssMiB, startProcess } from "./support.js";
import { benchAgent, compare, cpuCell, gatewayShare, httpGet, ROUNDS, rowBudget, startBenchSystem, tableLine, type ComparedPath, type Measurement } from "./measure.js";
import { connectDatabase, isMysql, type Knex } from "../lib/db.js";
import { Directory } from "../lib/directory.js";
import { HiringAdminService } from "../gen/hiring/v1/admin_pb.js";
import { HiringStore } from "../services/hiring/store.js";
import { SyntheticHiring } from "../services/hiring/synthetic.js";
import { readImport } from "../services/hiring/importing/document.js";
import { candidateRow } from "../services/hiring/candidates/rules.js";

/**
 * `npm run bench:hiring`: the candidate list at 200,000 candidates.
 *
 * Starts the whole system (`cmd/start.ts`) as a child process on its own data directory (or its
 * own MySQL databases and NATS stream when MYSQL_URL/NATS_URL are set), loads a synthetic
 * dataset directly through the hiring store (the import's own row building, without the
 * import's 200,000 `test.finished` events, which would only measure the relay), then measures
 * four queries five ways, each at a fixed concurrency for a fixed number of requests (or
 * seconds, whichever ends first), after a warm-up and in rounds the ways take in turn (bench/measure.ts
 * `compare`): through the gateway over HTTP; through a bare Fastify server
 * that runs the same store queries and writes the rows as JSON (bench/bare-server.ts: what any
 * HTTP server in Node.js costs on top of the queries); the same bare server writing the API's
 * answer from those rows (its JSON columns parsed, the tests' times as the API writes them; checked equal to the gateway's
 * before the rows run, and not the target's reference); the same queries issued by knex in this
 * process (the floor: what the service asks the database); and those again with the filtered
 * total counted each time (as for the first page of a filter). Besides throughput and latency
 * it prints the CPU time per request of the server's process and of this one (from /proc).
 *
 * Environment: BENCH_CANDIDATES (200000), BENCH_CONCURRENCY (8), BENCH_REQUESTS (2000 per row),
 * BENCH_SECONDS (30 per row at most), BENCH_CHUNK (2000 candidates per load transaction),
 * BENCH_ONLY (a scenario name prefix: run that row only), BENCH_PROFILE (a directory: the system
 * runs with --cpu-prof and writes its CPU profile there on exit).
 */

const CANDIDATES = Number(process.env.BENCH_CANDIDATES ?? 200_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CHUNK = Number(process.env.BENCH_CHUNK ?? 2000);
/** Only the scenarios whose name starts with this ("first", "90%", "filtered", "tags"). */
const ONLY = process.env.BENCH_ONLY;

/** Writes the synthetic dataset with the import's row building, chunk by chunk, one transaction each. */
async function load(db: Knex, workspaceId: string): Promise<void> {
  const store = new HiringStore(db);
  const data = new SyntheticHiring({ candidates: CANDIDATES, seed: 42 });
  const catalog = readImport(workspaceId, { ...data.catalog() });
  await db.transaction(async (trx) => {
    await store.upsertOpenings(trx, catalog.openings);
    await store.upsertCategories(trx, catalog.categories);
    await store.upsertTags(trx, catalog.tags);
  });
  const started = Date.now();
  for (let from = 0; from < CANDIDATES; from += CHUNK) {
    const plan = readImport(workspaceId, { candidates: data.candidates(from, from + CHUNK) });
    await db.transaction(async (trx) => {
      await store.writeCandidates(trx, workspaceId, plan.candidates.map((c) => ({ row: candidateRow(workspaceId, c), tagIds: c.tag_ids })));
    });
    const done = Math.min(from + CHUNK, CANDIDATES);
    if (done % (CHUNK * 10) === 0 || done === CANDIDATES) log(`  loaded ${done}/${CANDIDATES} candidates (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  // MySQL refreshes index statistics by itself; SQLite's planner needs them gathered.
  if (!isMysql(db)) await db.raw("ANALYZE");
}

/** GET with the hiring API key. */
function get(agent: http.Agent, port: number, path: string, key: string): Promise<{ status: number; body: string }> {
  return httpGet(agent, port, path, { authorization: `Bearer ${key}` });
}

interface Scenario {
  name: string;
  query: Record<string, string>;
}

async function main(): Promise<void> {
  const sys = await startBenchSystem();
  const { config, ports, env, mode } = sys;
  log(`hiring bench: ${CANDIDATES} candidates, ${mode}, concurrency ${CONCURRENCY}, ${rowBudget(REQUESTS, SECONDS)}`);
  const system = sys.process;
  const children = [];
  let db: Knex | undefined;
  try {
    const ws = await new Directory(config).client("hiring", HiringAdminService).createWorkspace({ name: "Bench" });
    db = await connectDatabase(config, "hiring");
    log("loading...");
    await load(db, ws.workspaceId);

    const store = new HiringStore(db);
    const listedCount = (await store.listCandidates(ws.workspaceId, benchListQuery({ limit: "1" }))).total;
    const deepRow: { id: string } = await db("candidates")
      .where({ workspace_id: ws.workspaceId, listed: 1 })
      .orderBy("first_started_at")
      .orderBy("id")
      .offset(Math.floor(listedCount * 0.9))
      .first("id");
    const scenarios: Scenario[] = [
      { name: "first page", query: {} },
      { name: "90% deep page", query: { after_id: deepRow.id } },
      { name: "filtered page", query: { job_opening_id: "s42-o1", hire_state: "possible-hire", min_score: "40", order: "desc" } },
      { name: "tags filter", query: { tag_ids: "s42-tag1,s42-tag4" } },
    ];

    /**
     * The floor: what the service asks the database for one request. A filtered total is counted
     * once and then remembered (see HiringStore.total); a fresh store counts it every time, as
     * the first page of a filter does.
     */
    const direct = async (query: Record<string, string>, from = store) => {
      const q = benchListQuery(query);
      const after = q.afterId === undefined ? undefined : await from.listPosition(ws.workspaceId, q.afterId);
      const page = await from.listCandidates(ws.workspaceId, q, after);
      return page.rows.length > 0;
    };

    const bare = await startProcess("bench/bare-server.ts", { ...env, BARE_PORT: String(ports.bare), BARE_WORKSPACE: ws.workspaceId }, `http://127.0.0.1:${ports.bare}/candidates?limit=1`);
    children.push(bare);

    const rows: { scenario: string; path: string; m: Measurement; total: number }[] = [];
    for (const s of scenarios.filter((s) => !ONLY || s.name.startsWith(ONLY))) {
      const query = Object.keys(s.query).length ? `?${new URLSearchParams(s.query)}` : "";
      const agent = benchAgent(CONCURRENCY);
      const check = await get(agent, ports.gateway, `/api/v2/candidates${query}`, ws.apiKey);
      const body = JSON.parse(check.body) as { data: unknown[]; total: number };
      if (check.status !== 200 || body.data.length === 0) throw new Error(`${query}: ${check.status} ${check.body.slice(0, 200)}`);
      const bareAnswer = await httpGet(agent, ports.bare, `/answer${query}`, {});
      const answered = JSON.parse(bareAnswer.body) as typeof body;
      if (JSON.stringify([answered.data, answered.total]) !== JSON.stringify([body.data, body.total])) {
        throw new Error(`${query}: the bare server's /answer (${bareAnswer.status}) differs from the gateway's answer`);
      }
      // A failure counts as an error of its row; the first few are shown, to say what failed.
      let shown = 0;
      const ok = async (answer: Promise<{ status: number; body: string }>) => {
        const res = await answer.catch((err: Error) => ({ status: 0, body: err.message }));
        if (res.status !== 200 && shown++ < 5) log(`  failed: ${res.status} ${res.body.slice(0, 300)}`);
        return res.status === 200;
      };
      const paths: ComparedPath[] = [
        { path: "gateway (HTTP)", request: () => ok(get(agent, ports.gateway, `/api/v2/candidates${query}`, ws.apiKey)), serverPid: system.pid },
        { path: "bare server (HTTP)", request: () => ok(get(agent, ports.bare, `/candidates${query}`, ws.apiKey)), serverPid: bare.pid },
        { path: "bare server, the API's answer (HTTP)", request: () => ok(httpGet(agent, ports.bare, `/answer${query}`, {})), serverPid: bare.pid },
        { path: "direct (knex)", request: () => direct(s.query) },
        { path: "direct, total counted (knex)", request: () => direct(s.query, new HiringStore(db!)) },
      ];
      for (const { path, m } of await compare(paths, REQUESTS, { concurrency: CONCURRENCY, seconds: SECONDS })) rows.push({ scenario: s.name, path, m, total: body.total });
      agent.destroy();
      log(`  ${s.name}: ${rows.slice(-paths.length).map((r) => `${r.path} ${r.m.rps.toFixed(0)} req/s`).join(", ")}`);
    }

    const line = tableLine;
    const out: string[] = [];
    out.push(`hiring candidate list, ${CANDIDATES} candidates (${listedCount} listed), ${mode}, concurrency ${CONCURRENCY}, ${rowBudget(REQUESTS, SECONDS)} in ${ROUNDS} rounds taken in turn with the other paths, limit 100`);
    out.push(line(["query", "path", "matches", "requests", "req/s", "p50 ms", "p99 ms", "errors", "server CPU ms/req", "bench CPU ms/req"]));
    out.push(line(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]));
    for (const r of rows) {
      out.push(line([r.scenario, r.path, String(r.total), String(r.m.requests), r.m.rps.toFixed(0), r.m.p50.toFixed(2), r.m.p99.toFixed(2), String(r.m.errors), cpuCell(r.m.serverCpu), cpuCell(r.m.benchCpu)]));
    }
    const find = (scenario: string, path: string) => rows.find((r) => r.scenario === scenario && r.path.startsWith(path))?.m;
    out.push("");
    const rss = rssMiB(system.pid!);
    if (rss !== undefined) out.push(`system resident memory after the run: ${rss.toFixed(0)} MiB`);
    const firstGw = find("first page", "gateway");
    const deepGw = find("90% deep page", "gateway");
    if (firstGw && deepGw) {
      out.push(`deep page cost / first page cost (gateway, by throughput): ${(firstGw.rps / deepGw.rps).toFixed(2)} (target <= 1.5); by p50: ${(deepGw.p50 / firstGw.p50).toFixed(2)}`);
    }
    for (const s of scenarios) {
      const [gw, bareServer, answer, floor] = [find(s.name, "gateway"), find(s.name, "bare server (HTTP)"), find(s.name, "bare server, the API's answer"), find(s.name, "direct")];
      if (gw && bareServer && answer && floor) {
        const pct = (m: Measurement) => `${((m.rps / floor.rps) * 100).toFixed(0)}%`;
        out.push(`throughput / direct, ${s.name}: gateway ${pct(gw)} (target >= 60%), bare server ${pct(bareServer)}`);
        out.push(gatewayShare(s.name, gw, bareServer, 80));
        out.push(gatewayShare(s.name, gw, answer, undefined, "bare server writing the API's answer"));
      }
    }
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    await db?.destroy();
    await sys.stop(children);
  }
}

await main();
