import "../lib/runtime.js";
import Fastify from "fastify";
import { connectDatabase } from "../lib/db.js";
import { HEADER } from "../lib/identity.js";
import { jsonIds } from "../lib/ids.js";
import { encodeMessage, trackingTimestamp } from "../lib/rest-json.js";
import { GetCurrentTimeEntryResponseSchema, TimeEntrySchema, TimeEntryService } from "../gen/tracking/v1/time_entries_pb.js";
import { runningEntry } from "../services/tracking/time-entries/store.js";
import { freePort, startTestSystem } from "../test/support/harness.js";
import { log } from "./support.js";
import { bareTimer } from "./tracking/bare-timer.js";
import { benchAgent, benchMode, httpGet, httpSend, ROUNDS, tableLine } from "./measure.js";

/**
 * `npm run bench:layers`: what each layer of a small read costs, the time entries `current` read
 * (`GET /api/v9/me/time_entries/current`, one row by an index), one layer added at a time.
 *
 * The whole system runs in this process (the test harness's, embedded or MySQL + NATS with
 * MYSQL_URL/NATS_URL), beside a small bare Fastify server, and each row sends its requests one at a time (no concurrency: what
 * is measured is the work of one request, not how requests overlap), in ROUNDS rounds taken in
 * turn. The CPU time per request is this process's (`process.cpuUsage`, to the microsecond, not
 * /proc's 10 ms ticks), so an HTTP row holds both ends of the request: the client's part is the
 * same in every HTTP row, and the differences between rows are the layers'.
 *
 * Each row's CPU is shown as the mean over its rounds and as its least round: on a shared machine a
 * neighbour's burst lands on some rounds of some rows (a row once measured below the bare route it
 * adds to); the least round is what the layer costs when nothing else runs, and the differences
 * between rows are taken from it. BENCH_ROUNDS of 6 or more gives every row quiet rounds.
 *
 * The last rows run start-then-stop pairs one layer at a time: the bare server's two knex
 * transactions, the service's RPCs in memory, and through the gateway over HTTP (another user's),
 * with the work their events make in this process (the relay, the audit log, the notifier's intake):
 * a pair's CPU measured to the microsecond, which the whole-process bench (bench:tracking) reads off
 * /proc. The events' work of one row's last milliseconds falls into the next row's round.
 *
 * Environment: BENCH_REQUESTS (20000 per row), BENCH_PAIRS (2000 for each pair row), BENCH_ROUNDS (3).
 */

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
/** The pair row's pairs (each two writes and their events: a request's CPU many times over). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2_000);
/** Unmeasured requests per row first (a tenth of them), so that every layer is measured with its code optimized by the JIT. */
const warmUp = (requests: number) => Math.min(2_000, Math.ceil(requests / 10));

interface Row {
  name: string;
  request: () => Promise<unknown>;
  /** Requests of the row over all rounds. */
  requests: number;
  cpuUs: number;
  /** The CPU µs per request of the row's least round. */
  leastUs: number;
  wallUs: number;
  count: number;
}

/** A start as a client sends it: now, to the second, in UTC. */
const startNow = () => new Date().toISOString().slice(0, 19) + "Z";

/** The pair's rows, one layer at a time (their differences are printed by name). */
const PAIR_BARE = "the bare server's start-then-stop pair (two knex transactions), no HTTP, per pair";
const PAIR_RPC = "the start-then-stop pair's RPCs in memory, no HTTP, per pair";
const PAIR_GATEWAY = "HTTP: the gateway's start-then-stop pair, per pair";
const PAIR_BARE_ROUTE = "HTTP: bare routes, the pair's RPCs in memory, per pair";
const PAIR_BARE_TURN = "the bare server's pair, a turn of the event loop before each transaction (setImmediate), per pair";
const PAIR_BARE_SLEEP = "the bare server's pair, a 1 ms timer before each transaction (the thread sleeps), per pair";

/** What startTestSystem leaves to be done at the end (a tap test's teardown). */
const teardowns: (() => unknown)[] = [];
const system = await startTestSystem({ teardown: (fn) => teardowns.push(fn) });
const { config } = system;
const port = system.ports.gateway!;
const bare = Fastify();
const db = await connectDatabase(config, "tracking");
const agent = benchAgent(1);
try {
  const mode = benchMode(config);
  log(`layers bench: ${mode}, ${REQUESTS} requests per row, one at a time, ${ROUNDS} rounds`);
  const user = await system.signup("layers");
  const started = await system.api("POST", `/api/v9/workspaces/${user.workspaceId}/time_entries`, { auth: user.auth, body: { created_with: "layers", start: startNow() } });
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
  const authorization = `Basic ${Buffer.from(`${user.apiToken}:api_token`).toString("base64")}`;
  const userId = BigInt(user.id);
  const client = system.directory.client("tracking", TimeEntryService);
  const rpc = () => client.getCurrentTimeEntry({}, { headers: { [HEADER.userId]: String(userId) } });

  // The bare server's routes: nothing, the store's query (once, and twice: what a query costs when
  // the request has already run one), the service's RPC.
  bare.get("/nothing", async () => "{}");
  bare.get("/query", async () => JSON.stringify((await runningEntry(db, userId)) ?? null, jsonIds));
  bare.get("/query-twice", async () => {
    await runningEntry(db, userId);
    return JSON.stringify((await runningEntry(db, userId)) ?? null, jsonIds);
  });
  bare.get("/rpc", async () => JSON.stringify(encodeMessage(GetCurrentTimeEntryResponseSchema, (await rpc()) as never, trackingTimestamp)));

  const get = async (at: number, path: string, headers: Record<string, string> = {}) => {
    const res = await httpGet(agent, at, path, headers);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
  };

  // A start-then-stop pair through the gateway, by another user (the first keeps its running entry
  // for `current`): the writes, their events, and the relay's passes that publish them to the audit
  // log and the notifier (in this process too, in the next milliseconds: a round's last pass falls
  // into the next row's round).
  const pairing = await system.signup("layers-pairs");
  const pairAuth = { authorization: `Basic ${Buffer.from(`${pairing.apiToken}:api_token`).toString("base64")}` };
  /** A start (POST `startPath`) and the stop of the entry it answers (PATCH `stopPath(id)`), over HTTP. */
  const httpPair = (at: number, startPath: string, stopPath: (id: string) => string, headers: Record<string, string>) => async () => {
    const started = await httpSend(agent, at, "POST", startPath, headers, { created_with: "layers", start: startNow() });
    if (started.status !== 200) throw new Error(`${startPath}: ${started.status} ${started.body.slice(0, 200)}`);
    const stopped = await httpSend(agent, at, "PATCH", stopPath(JSON.parse(started.body).id), headers);
    if (stopped.status !== 200) throw new Error(`stop: ${stopped.status} ${stopped.body.slice(0, 200)}`);
  };
  const entries = `/api/v9/workspaces/${pairing.workspaceId}/time_entries`;
  const pair = httpPair(port, entries, (id) => `${entries}/${id}/stop`, pairAuth);
  // The same pair without HTTP: the service's RPCs in memory, and the bare server's two transactions
  // (by a third user, so that no row of one path is running for another).
  const pairCall = { headers: { [HEADER.userId]: String(pairing.id) } };
  const rpcPair = async () => {
    const { timeEntry } = await client.createTimeEntry({ workspaceId: BigInt(pairing.workspaceId), entry: { createdWith: "layers", start: startNow() } }, pairCall);
    await client.stopTimeEntry({ workspaceId: BigInt(pairing.workspaceId), timeEntryId: timeEntry!.id }, pairCall);
  };
  const bareUser = await system.signup("layers-bare");
  const timer = bareTimer(db, BigInt(bareUser.id), Number(bareUser.workspaceId));
  const barePair = async () => void (await timer.stop(await timer.start()));
  // The bare server's pair again, each transaction after the event loop has turned: at once
  // (setImmediate), or after a 1 ms timer, for which the thread sleeps. The work is the same; what
  // differs is what the CPU's caches and predictors hold when it starts (docs/gateway-cost.md).
  const after = (wait: (resume: () => void) => unknown) => async () => {
    await new Promise<void>((resume) => wait(resume));
    const id = await timer.start();
    await new Promise<void>((resume) => wait(resume));
    await timer.stop(id);
  };
  // The pair's RPCs behind bare routes answering as the gateway does (the entry as REST JSON): the
  // gateway's own share of a pair is what its row costs beyond this one.
  const entryJson = (entry: unknown) => JSON.stringify(encodeMessage(TimeEntrySchema, entry as never, trackingTimestamp));
  bare.post("/pair", async (req) => entryJson((await client.createTimeEntry({ workspaceId: BigInt(pairing.workspaceId), entry: { createdWith: "layers", start: (req.body as { start: string }).start } }, pairCall)).timeEntry));
  bare.patch("/pair/:id", async (req) => entryJson((await client.stopTimeEntry({ workspaceId: BigInt(pairing.workspaceId), timeEntryId: BigInt((req.params as { id: string }).id) }, pairCall)).timeEntry));
  const barePort = await freePort();
  await bare.listen({ host: "127.0.0.1", port: barePort });
  const bareRoutePair = httpPair(barePort, "/pair", (id) => `/pair/${id}`, {});

  const rows: Row[] = [
    { name: "the store's query (knex), no HTTP", request: () => runningEntry(db, userId) },
    { name: "the RPC in memory, no HTTP", request: rpc },
    { name: "HTTP: bare route, nothing", request: () => get(barePort, "/nothing") },
    { name: "HTTP: bare route, the store's query", request: () => get(barePort, "/query") },
    { name: "HTTP: bare route, the store's query twice", request: () => get(barePort, "/query-twice") },
    { name: "HTTP: bare route, the RPC in memory", request: () => get(barePort, "/rpc") },
    { name: "HTTP: the gateway's /healthz", request: () => get(port, "/healthz") },
    { name: "HTTP: the gateway's route", request: () => get(port, "/api/v9/me/time_entries/current", { authorization }) },
    { name: PAIR_BARE, request: barePair, requests: PAIRS },
    { name: PAIR_RPC, request: rpcPair, requests: PAIRS },
    { name: PAIR_BARE_ROUTE, request: bareRoutePair, requests: PAIRS },
    { name: PAIR_GATEWAY, request: pair, requests: PAIRS },
    { name: PAIR_BARE_TURN, request: after(setImmediate), requests: PAIRS },
    { name: PAIR_BARE_SLEEP, request: after((resume) => setTimeout(resume, 1)), requests: PAIRS },
  ].map((r) => ({ requests: REQUESTS, ...r, cpuUs: 0, leastUs: Infinity, wallUs: 0, count: 0 }));

  for (const row of rows) for (let i = 0; i < warmUp(row.requests); i++) await row.request();
  for (let round = 0; round < ROUNDS; round++) {
    for (const row of rows) {
      const n = Math.ceil(row.requests / ROUNDS);
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < n; i++) await row.request();
      const used = process.cpuUsage(cpu);
      row.wallUs += (performance.now() - started) * 1000;
      row.cpuUs += used.user + used.system;
      row.leastUs = Math.min(row.leastUs, (used.user + used.system) / n);
      row.count += n;
    }
    log(`  round ${round + 1} done`);
  }

  const cpu = (name: string) => rows.find((r) => r.name === name)!.leastUs;
  const lines = [
    `layers of the time entries \`current\` read, ${mode}, ${REQUESTS} requests per row (${PAIRS} pairs) one at a time, in ${ROUNDS} rounds taken in turn; CPU of this process (both ends of an HTTP request)`,
    tableLine(["layer", "requests", "CPU µs/req", "least round's CPU µs/req", "wall µs/req"]),
    tableLine(["---", "---:", "---:", "---:", "---:"]),
    ...rows.map((r) => tableLine([r.name, String(r.count), (r.cpuUs / r.count).toFixed(1), r.leastUs.toFixed(1), (r.wallUs / r.count).toFixed(1)])),
    "",
    "differences, CPU µs per request of the least rounds:",
    `- the store's query answered over HTTP (bare route, the query - bare route, nothing): ${(cpu("HTTP: bare route, the store's query") - cpu("HTTP: bare route, nothing")).toFixed(1)}`,
    `- the same query again in the same request (bare route, the query twice - bare route, the query): ${(cpu("HTTP: bare route, the store's query twice") - cpu("HTTP: bare route, the store's query")).toFixed(1)}`,
    `- the RPC in memory over the query (transport, interceptors, access, the handler's message, REST encoding), over HTTP: ${(cpu("HTTP: bare route, the RPC in memory") - cpu("HTTP: bare route, the store's query")).toFixed(1)}`,
    `- the gateway's own steps (credentials, request message, call, hooks, metrics, the router of every route): ${(cpu("HTTP: the gateway's route") - cpu("HTTP: bare route, the RPC in memory")).toFixed(1)}`,
    `- the gateway over the bare server (the gateway's route - bare route, the store's query): ${(cpu("HTTP: the gateway's route") - cpu("HTTP: bare route, the store's query")).toFixed(1)}`,
    `- a pair's writes in the service over the bare server's (the RPCs in memory - the two knex transactions): ${(cpu(PAIR_RPC) - cpu(PAIR_BARE)).toFixed(1)}`,
    `- a pair's two requests over HTTP through the gateway, with the events' work (the gateway's pair - the RPCs in memory): ${(cpu(PAIR_GATEWAY) - cpu(PAIR_RPC)).toFixed(1)}`,
    `- of which the gateway's own (the gateway's pair - bare routes calling the same RPCs): ${(cpu(PAIR_GATEWAY) - cpu(PAIR_BARE_ROUTE)).toFixed(1)}`,
    `- the same transactions after the thread slept 1 ms, over after a turn of the loop (the machine's, not the code's): ${(cpu(PAIR_BARE_SLEEP) - cpu(PAIR_BARE_TURN)).toFixed(1)}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  agent.destroy();
  await bare.close();
  await db.destroy();
  for (const teardown of teardowns) await teardown();
}
