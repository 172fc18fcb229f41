import * as http from "node:http";
import * as net from "node:net";
import { readdirSync, readFileSync } from "node:fs";
import { cpuMs, log, startProcess, stopProcess } from "./support.js";
import { loadConfig } from "../lib/config.js";
import { Directory } from "../lib/directory.js";
import { WebhookAdminService } from "../gen/notifier/v1/webhooks_pb.js";
import { cleanUp, freePort, testEnv } from "../test/support/harness.js";

/**
 * `npm run bench:webhooks`: N subscriptions times M events to local receivers.
 *
 * Starts the whole system (`cmd/start.ts`) as a child process, as it runs for real, on its own
 * data directory (or its own MySQL databases and NATS stream when MYSQL_URL/NATS_URL are set).
 * One time-tracking workspace gets N validated subscriptions for every event, spread over a few
 * receivers in this process that answer 200 at once. Then M clients are created through the
 * REST API at a steady rate; each creation is an event (tracking outbox -> relay -> stream ->
 * notifier) that goes to all N subscriptions. Prints deliveries per second, the time from the
 * event's creation (the `created_at` of the payload) to its arrival at the receiver, and order
 * violations (a subscription receiving an event after a later one), and the CPU time per delivery
 * of the system's process and of the database and NATS servers (found by name in /proc).
 *
 * Then the floor, in the same run: the same bodies with the same headers POSTed to the same
 * receivers by a bare Node.js loop in this process, one at a time per subscription (as the
 * notifier delivers) and every subscription at once, through a keep-alive agent like the
 * notifier's; nothing is read, signed or stored.
 *
 * Environment: BENCH_SUBSCRIPTIONS (100), BENCH_EVENTS (200), BENCH_RATE (events per second,
 * 12 = 1,200 deliveries per second; 0 = as fast as the API takes them), BENCH_RECEIVERS (4),
 * BENCH_WARMUP (20 events first, checked for loss and order but not timed), BENCH_PROFILE (a
 * directory for a CPU profile of the system).
 */

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 12);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? 4);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);

interface Arrival {
  subscription: number;
  /** Where it arrived (the subscription's callback path), what it carried: the floor sends it again. */
  path: string;
  body: string;
  headers: Record<string, string>;
  objectId: string;
  notificationId: string;
  latencyMs: number;
  at: number;
}

/** What a delivery carries besides its body: the signature headers the notifier sends. */
const REPLAYED_HEADERS = ["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature", "x-webhook-signature-256"];

/** Receivers that answer 200 at once and note what arrived when (`onArrival` replaced for the floor). */
async function startReceivers(count: number, onArrival: (a: Arrival) => void): Promise<{ urls: string[]; onArrival: (a: Arrival) => void; close(): Promise<void> }> {
  const servers: http.Server[] = [];
  const urls: string[] = [];
  const receivers = {
    urls,
    onArrival,
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
  for (let i = 0; i < count; i++) {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const at = Date.now();
        res.writeHead(200).end();
        const text = Buffer.concat(chunks).toString("utf8");
        const body = JSON.parse(text);
        receivers.onArrival({
          path: req.url ?? "/",
          body: text,
          headers: Object.fromEntries(REPLAYED_HEADERS.map((h) => [h, String(req.headers[h] ?? "")])),
          subscription: Number(body.subscription_id),
          objectId: String(body.metadata.object_id),
          notificationId: String(req.headers["webhook-id"]),
          latencyMs: at - Date.parse(body.created_at),
          at,
        });
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
  }
  return receivers;
}

/** The pids of the processes named `name` (the database and NATS servers beside the system), from /proc. */
function pidsNamed(...names: string[]): number[] {
  try {
    return readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return names.includes(readFileSync(`/proc/${d}/comm`, "utf8").trim());
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU ms used so far by these processes together (undefined without /proc or without any). */
function cpuOf(pids: number[]): number | undefined {
  const each = pids.map(cpuMs).filter((v): v is number => v !== undefined);
  return each.length ? each.reduce((a, b) => a + b, 0) : undefined;
}

const bareAgent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 60_000 });

/** One POST of a bare loop: the body and headers as they arrived, answered 200 at once. */
function bareSend(url: string, a: Arrival): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent: bareAgent, headers: { ...a.headers, "content-length": Buffer.byteLength(a.body) } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(a.body);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const ports = { PORT: await freePort(), HIRING_PORT: await freePort(), ACCOUNTS_PORT: await freePort(), TRACKING_PORT: await freePort(), NOTIFIER_PORT: await freePort() };
  const env = testEnv({ ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOG_LEVEL: "warn" });
  const config = loadConfig(env);
  const mode = config.mysqlUrl && config.natsUrl ? "stack (MariaDB + NATS JetStream)" : "embedded (SQLite + in-process bus)";
  const gateway = `http://127.0.0.1:${ports.PORT}`;
  const child = await startProcess("cmd/start.ts", { ...process.env, ...env }, `http://127.0.0.1:${ports.PORT}/readyz`);
  let receivers: Awaited<ReturnType<typeof startReceivers>> | undefined;
  try {
    const api = async (path: string, body: unknown, authorization?: string) => {
      const res = await fetch(`${gateway}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const user = await api("/api/signup", { email: `bench.${ports.PORT}@example.com`, password: "correct horse battery", display_name: "bench", timezone: "UTC" });
    const authorization = `Basic ${Buffer.from(`${user.api_token}:api_token`).toString("base64")}`;
    const workspaceId = String(user.default_workspace_id);

    const arrivals: Arrival[] = [];
    const firsts = new Set<string>();
    let phase: { expected: number; arrived: () => void } | undefined;
    receivers = await startReceivers(RECEIVERS, (a) => {
      arrivals.push(a);
      firsts.add(`${a.subscription} ${a.objectId}`);
      if (phase && firsts.size >= phase.expected) phase.arrived();
    });
    const admin = new Directory(config).client("notifier", WebhookAdminService);
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      await admin.createSubscription({ service: "tracking", workspaceId, url: `${receivers.urls[i % RECEIVERS]}/s${i}`, eventFilters: [{ entity: "client", action: "created" }] });
    }
    log(`${mode}: ${SUBSCRIPTIONS} subscriptions, ${WARMUP} + ${EVENTS} events at ${RATE || "max"}/s through POST /api/v9/workspaces/{id}/clients, ${RECEIVERS} receivers`);

    /** Creates `count` clients at the rate; resolves once every subscription has all events so far. */
    const created: string[] = [];
    /** How long the last run took to create its events (the API takes one at a time). */
    let creatingSeconds = 0;
    const run = async (count: number): Promise<number> => {
      const started = Date.now();
      const expected = SUBSCRIPTIONS * (created.length + count);
      const arrived = firsts.size >= expected ? Promise.resolve() : new Promise<void>((resolve) => (phase = { expected, arrived: resolve }));
      for (let i = 0; i < count; i++) {
        if (RATE > 0) {
          const due = started + (i * 1000) / RATE;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
        created.push(String((await api(`/api/v9/workspaces/${workspaceId}/clients`, { name: `client ${created.length}` }, authorization)).id));
      }
      creatingSeconds = (Date.now() - started) / 1000;
      const timeout = setTimeout(() => phase?.arrived(), 120_000);
      await arrived;
      clearTimeout(timeout);
      return started;
    };
    // The first events pay for connections and compilation; they are checked, not timed.
    await run(WARMUP);
    const measured = new Set<string>();
    const database = config.mysqlUrl ? pidsNamed("mariadbd", "mysqld") : [];
    const nats = config.natsUrl ? pidsNamed("nats-server") : [];
    const cpuBefore = { system: cpuMs(child.pid!), database: cpuOf(database), nats: cpuOf(nats), bench: process.cpuUsage() };
    const started = await run(EVENTS);
    const cpuAfter = { system: cpuMs(child.pid!), database: cpuOf(database), nats: cpuOf(nats), bench: process.cpuUsage(cpuBefore.bench) };
    for (const id of created.slice(WARMUP)) measured.add(id);
    const expected = SUBSCRIPTIONS * created.length;
    const timed = arrivals.filter((a) => measured.has(a.objectId));
    const finished = Math.max(...timed.map((a) => a.at));

    // Per subscription: the first arrival of each event, in arrival order, against creation order.
    const rank = new Map(created.map((id, i) => [id, i]));
    let violations = 0;
    let duplicates = 0;
    const seen = new Map<number, { last: number; ids: Set<string> }>();
    for (const a of arrivals) {
      const s = seen.get(a.subscription) ?? { last: -1, ids: new Set<string>() };
      seen.set(a.subscription, s);
      if (s.ids.has(a.notificationId)) {
        duplicates++;
        continue;
      }
      s.ids.add(a.notificationId);
      const r = rank.get(a.objectId) ?? -1;
      if (r < s.last) violations++;
      s.last = Math.max(s.last, r);
    }
    const lost = expected - firsts.size;
    const latencies = timed.map((a) => a.latencyMs).sort((a, b) => a - b);
    const deliveredTimed = new Set(timed.map((a) => `${a.subscription} ${a.objectId}`)).size;
    // The first delivery of each event: the pipeline up to the notifier, without the fan-out.
    const firstOfEvent = new Map<string, number>();
    for (const a of timed) firstOfEvent.set(a.objectId, Math.min(firstOfEvent.get(a.objectId) ?? Infinity, a.latencyMs));
    const firstLatencies = [...firstOfEvent.values()].sort((a, b) => a - b);
    const seconds = (finished - started) / 1000;
    const perDelivery = (before?: number, after?: number) => (before === undefined || after === undefined ? "n/a" : `${((after - before) / deliveredTimed).toFixed(3)} ms`);
    const benchCpu = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

    // The floor: the timed deliveries again, by a bare loop, one at a time per subscription.
    const bySubscription = new Map<string, Arrival[]>();
    const sent = new Set<string>();
    for (const a of timed) {
      if (sent.has(`${a.subscription} ${a.objectId}`)) continue;
      sent.add(`${a.subscription} ${a.objectId}`);
      bySubscription.set(a.path, [...(bySubscription.get(a.path) ?? []), a]);
    }
    const urlOf = new Map<string, string>();
    for (let i = 0; i < SUBSCRIPTIONS; i++) urlOf.set(`/s${i}`, `${receivers.urls[i % RECEIVERS]}/s${i}`);
    let floorArrived = 0;
    receivers.onArrival = () => floorArrived++;
    const floorLatencies: number[] = [];
    const floorCpu = process.cpuUsage();
    const floorStarted = performance.now();
    await Promise.all(
      [...bySubscription].map(async ([path, list]) => {
        for (const a of list) {
          const t0 = performance.now();
          await bareSend(urlOf.get(path)!, a);
          floorLatencies.push(performance.now() - t0);
        }
      }),
    );
    const floorSeconds = (performance.now() - floorStarted) / 1000;
    const floorBench = benchCpu(process.cpuUsage(floorCpu));
    floorLatencies.sort((a, b) => a - b);
    const floorRate = sent.size / floorSeconds;
    const systemRate = deliveredTimed / seconds;
    const metrics = await fetch(`http://127.0.0.1:${ports.NOTIFIER_PORT}/metrics`).then((r) => r.text());
    const attemptLatency = /^webhook_delivery_latency_seconds_sum(?:\{[^}]*\})? (\S+)$/m.exec(metrics)?.[1];
    const attempts = /^webhook_delivery_latency_seconds_count(?:\{[^}]*\})? (\S+)$/m.exec(metrics)?.[1];
    console.log(
      [
        `mode                     ${mode}`,
        `subscriptions x events   ${SUBSCRIPTIONS} x ${EVENTS} = ${SUBSCRIPTIONS * EVENTS} notifications timed, after ${WARMUP} warm-up events (offered ${RATE ? `${RATE * SUBSCRIPTIONS}/s` : "as fast as possible"})`,
        `delivered                ${firsts.size} of ${expected} (lost ${lost}, duplicates ${duplicates})`,
        `elapsed                  ${seconds.toFixed(2)} s (first timed event created to its last delivery; the events were created in ${creatingSeconds.toFixed(2)} s)`,
        `deliveries per second    ${Math.round(deliveredTimed / seconds)}`,
        `event -> delivery        p50 ${quantile(latencies, 0.5)} ms, p90 ${quantile(latencies, 0.9)} ms, p99 ${quantile(latencies, 0.99)} ms, max ${latencies[latencies.length - 1]} ms`,
        `first delivery of event  p50 ${quantile(firstLatencies, 0.5)} ms, p99 ${quantile(firstLatencies, 0.99)} ms`,
        `receiver round trip      mean ${attemptLatency && attempts ? ((Number(attemptLatency) * 1000) / Number(attempts)).toFixed(2) : "?"} ms (request to answer, as the notifier measures it)`,
        `order violations         ${violations}`,
        `CPU per delivery         system process ${perDelivery(cpuBefore.system, cpuAfter.system)} (the notifier, with the API and tracking service making the events), database ${perDelivery(cpuBefore.database, cpuAfter.database)}, NATS ${perDelivery(cpuBefore.nats, cpuAfter.nats)}, this process ${(benchCpu(cpuAfter.bench) / deliveredTimed).toFixed(3)} ms (receivers, client)`,
        `floor (bare loop)        ${sent.size} POSTs (${floorArrived} arrived) in ${floorSeconds.toFixed(2)} s: ${Math.round(floorRate)} per second, round trip p50 ${quantile(floorLatencies, 0.5).toFixed(1)} ms, p99 ${quantile(floorLatencies, 0.99).toFixed(1)} ms; CPU per delivery ${(floorBench / sent.size).toFixed(3)} ms (loop and receivers, this process)`,
        `system / floor           ${((systemRate / floorRate) * 100).toFixed(0)}% of the floor's deliveries per second (target >= 50%)`,
      ].join("\n"),
    );
    if (lost > 0 || violations > 0) process.exitCode = 1;
  } finally {
    await stopProcess(child);
    bareAgent.destroy();
    await receivers?.close();
    await cleanUp(config);
  }
}

await main();
