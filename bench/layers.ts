import * as http from "node:http";
import Fastify from "fastify";
import { startSystem } from "../cmd/system.js";
import { loadConfig } from "../lib/config.js";
import { connectDatabase } from "../lib/db.js";
import { HEADER } from "../lib/identity.js";
import { jsonIds } from "../lib/ids.js";
import { createLogger } from "../lib/logger.js";
import { encodeMessage, trackingTimestamp } from "../lib/rest-json.js";
import { GetCurrentTimeEntryResponseSchema, TimeEntryService } from "../gen/tracking/v1/time_entries_pb.js";
import { runningEntry } from "../services/tracking/time-entries/store.js";
import { cleanUp, freePort, testEnv } from "../test/support/harness.js";
import { log } from "./support.js";
import { ROUNDS, tableLine } from "./measure.js";

/**
 * `npm run bench:layers`: what each layer of a small read costs, the time entries `current` read
 * (`GET /api/v9/me/time_entries/current`, one row by an index), one layer added at a time.
 *
 * The whole system runs in this process (embedded, or MySQL + NATS with MYSQL_URL/NATS_URL), beside
 * a one-route Fastify server, and each row sends its requests one at a time (no concurrency: what
 * is measured is the work of one request, not how requests overlap), in ROUNDS rounds taken in
 * turn. The CPU time per request is this process's (`process.cpuUsage`, to the microsecond, not
 * /proc's 10 ms ticks), so an HTTP row holds both ends of the request: the client's part is the
 * same in every HTTP row, and the differences between rows are the layers'.
 *
 * Environment: BENCH_REQUESTS (20000 per row), BENCH_ROUNDS (3).
 */

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
/** Unmeasured requests per row first, so that every layer is measured with its code optimized by the JIT. */
const WARMUP = Math.min(2_000, REQUESTS);

interface Row {
  name: string;
  request: () => Promise<unknown>;
  cpuUs: number;
  wallUs: number;
  count: number;
}

const port = await freePort();
const config = loadConfig(testEnv({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }));
const system = await startSystem({ config, services: ["notifier", "accounts", "hiring", "tracking"], gateway: true, log: createLogger("warn"), host: "127.0.0.1" });
const bare = Fastify();
const db = await connectDatabase(config, "tracking");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
try {
  const mode = config.mysqlUrl ? `MySQL + ${config.natsUrl ? "NATS" : "in-process bus"}` : "embedded (SQLite, in-process bus)";
  log(`layers bench: ${mode}, ${REQUESTS} requests per row, one at a time, ${ROUNDS} rounds`);
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${system.gatewayUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const user = await post("/api/signup", { email: `layers${Date.now()}@example.com`, password: "correct horse battery", timezone: "UTC" });
  const authorization = `Basic ${Buffer.from(`${user.api_token as string}:api_token`).toString("base64")}`;
  await post(`/api/v9/workspaces/${user.default_workspace_id as number}/time_entries`, { created_with: "layers", start: new Date().toISOString().slice(0, 19) + "Z" }, { authorization });
  const userId = BigInt(user.id as number);
  const client = system.directory.client("tracking", TimeEntryService);
  const rpc = () => client.getCurrentTimeEntry({}, { headers: { [HEADER.userId]: String(userId) } });

  // The bare server's three routes: nothing, the store's query, the service's RPC.
  bare.get("/nothing", async () => "{}");
  bare.get("/query", async () => JSON.stringify((await runningEntry(db, userId)) ?? null, jsonIds));
  bare.get("/rpc", async () => JSON.stringify(encodeMessage(GetCurrentTimeEntryResponseSchema, (await rpc()) as never, trackingTimestamp)));
  const barePort = await freePort();
  await bare.listen({ host: "127.0.0.1", port: barePort });

  const get = (at: number, path: string, headers: Record<string, string> = {}) =>
    new Promise<void>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port: at, path, agent, headers }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
          res.resume();
          res.on("end", resolve);
        })
        .on("error", reject);
    });

  const rows: Row[] = [
    { name: "the store's query (knex), no HTTP", request: () => runningEntry(db, userId) },
    { name: "the RPC in memory, no HTTP", request: rpc },
    { name: "HTTP: bare route, nothing", request: () => get(barePort, "/nothing") },
    { name: "HTTP: bare route, the store's query", request: () => get(barePort, "/query") },
    { name: "HTTP: bare route, the RPC in memory", request: () => get(barePort, "/rpc") },
    { name: "HTTP: the gateway's /healthz", request: () => get(port, "/healthz") },
    { name: "HTTP: the gateway's route", request: () => get(port, "/api/v9/me/time_entries/current", { authorization }) },
  ].map((r) => ({ ...r, cpuUs: 0, wallUs: 0, count: 0 }));

  for (const row of rows) for (let i = 0; i < WARMUP; i++) await row.request();
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      const n = Math.ceil(REQUESTS / ROUNDS);
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < n; i++) await row.request();
      const used = process.cpuUsage(cpu);
      row.wallUs += (performance.now() - started) * 1000;
      row.cpuUs += used.user + used.system;
      row.count += n;
    }
    log(`  round ${round + 1} done`);
  }

  const cpu = (name: string) => {
    const row = rows.find((r) => r.name === name)!;
    return row.cpuUs / row.count;
  };
  const lines = [
    `layers of the time entries \`current\` read, ${mode}, ${REQUESTS} requests per row one at a time, in ${ROUNDS} rounds taken in turn; CPU of this process (both ends of an HTTP request)`,
    tableLine(["layer", "requests", "CPU µs/req", "wall µs/req"]),
    tableLine(["---", "---:", "---:", "---:"]),
    ...rows.map((r) => tableLine([r.name, String(r.count), (r.cpuUs / r.count).toFixed(1), (r.wallUs / r.count).toFixed(1)])),
    "",
    "differences, CPU µs per request:",
    `- the store's query answered over HTTP (bare route, the query - bare route, nothing): ${(cpu("HTTP: bare route, the store's query") - cpu("HTTP: bare route, nothing")).toFixed(1)}`,
    `- the RPC in memory over the query (transport, interceptors, access, the handler's message, REST encoding), over HTTP: ${(cpu("HTTP: bare route, the RPC in memory") - cpu("HTTP: bare route, the store's query")).toFixed(1)}`,
    `- the gateway's own steps (credentials, request message, call, hooks, metrics, the router of every route): ${(cpu("HTTP: the gateway's route") - cpu("HTTP: bare route, the RPC in memory")).toFixed(1)}`,
    `- the gateway over the bare server (the gateway's route - bare route, the store's query): ${(cpu("HTTP: the gateway's route") - cpu("HTTP: bare route, the store's query")).toFixed(1)}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  agent.destroy();
  await bare.close();
  await db.destroy();
  await system.close();
  await cleanUp(config);
}
