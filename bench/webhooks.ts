import * as http from "node:http";
import * as net from "node:net";
import { execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { floorLoop, type FloorClient, type FloorRequest, type FloorResult } from "./webhooks-floor.js";
import { readdirSync, readFileSync } from "node:fs";
import { cpuMs, log, profileArgs, startProcess, stopProcess } from "./support.js";
import { loadConfig } from "../lib/config.js";
import { Directory } from "../lib/directory.js";
import { WebhookAdminService } from "../gen/notifier/v1/webhooks_pb.js";
import { cleanUp, freePort, testEnv } from "../test/support/harness.js";

/**
 * `npm run bench:webhooks`: N subscriptions times M events to local receivers.
 *
 * Starts the whole system (`cmd/start.ts`, here `bench/webhooks-system.ts`, which lets this
 * process hold and release the notifier's dispatcher) as a child process, as it runs for real, on
 * its own data directory (or its own MySQL databases and NATS stream when MYSQL_URL/NATS_URL are
 * set). One time-tracking workspace gets N validated subscriptions for every event, spread over a
 * few receivers in this process that answer 200 at once. Each client created through the REST API
 * is an event (tracking outbox -> relay -> stream -> notifier) that goes to all N subscriptions.
 *
 * Two timed rows:
 * - backlog (the notifier's own speed): the dispatcher is held, M clients are created, and once
 *   all N x M notifications are queued the dispatcher is released; timed from the release to the
 *   last delivery, with the CPU time per delivery of the system's process (only the notifier works
 *   then) and of the database server (found by name in /proc).
 * - live (end to end): BENCH_LIVE clients created at BENCH_RATE while the notifier delivers; the
 *   time from the event's creation (the `created_at` of the payload) to its arrival. Creating
 *   events through the API is the slower part here (one at a time), so this row shows latency,
 *   not the notifier's throughput.
 * Both check loss, duplicates and order (a subscription receiving an event after a later one).
 *
 * Then the floor, in the same run (bench/webhooks-floor.ts): the backlog's bodies with the same
 * headers POSTed to the same receivers by a bare Node.js loop, one at a time per subscription (as
 * the notifier delivers) and every subscription at once, through a keep-alive agent like the
 * notifier's; nothing is read, signed or stored. Twice: in this process, beside the receivers, and
 * in a process of its own, as the notifier is (on a busy machine a round trip between two
 * processes waits for both to be scheduled; one within a process does not).
 *
 * Environment: BENCH_SUBSCRIPTIONS (100), BENCH_EVENTS (200, the backlog), BENCH_LIVE (50 events,
 * 0 = no live row), BENCH_RATE (events per second of the live row, 12 = 1,200 deliveries per
 * second; 0 = as fast as the API takes them), BENCH_RECEIVERS (4), BENCH_WARMUP (20 events
 * first, checked for loss and order but not timed), BENCH_PROFILE (a directory for CPU
 * profiles of the system and of the floor's own process).
 */

const execFileAsync = promisify(execFile);

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const LIVE = Number(process.env.BENCH_LIVE ?? 50);
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

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Sends the system process a message of bench/webhooks-system.ts and waits for its answer. */
function command(child: ChildProcess, message: "hold" | "release"): Promise<void> {
  return new Promise((resolve) => {
    const answer = message === "hold" ? "held" : "released";
    const on = (m: unknown) => {
      if (m !== answer) return;
      child.off("message", on);
      resolve();
    };
    child.on("message", on);
    child.send(message);
  });
}

/** Notifications pending over all subscriptions, from the notifier's /metrics. */
async function pendingNotifications(notifierPort: number): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${notifierPort}/metrics`).then((r) => r.text());
  let sum = 0;
  for (const m of text.matchAll(/^webhook_queue_depth\{[^}]*\} (\S+)$/gm)) sum += Number(m[1]);
  return sum;
}

async function main(): Promise<void> {
  const ports = { PORT: await freePort(), HIRING_PORT: await freePort(), ACCOUNTS_PORT: await freePort(), TRACKING_PORT: await freePort(), NOTIFIER_PORT: await freePort() };
  const env = testEnv({ ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOG_LEVEL: "warn" });
  const config = loadConfig(env);
  const mode = config.mysqlUrl && config.natsUrl ? "stack (MariaDB + NATS JetStream)" : "embedded (SQLite + in-process bus)";
  const gateway = `http://127.0.0.1:${ports.PORT}`;
  const child = await startProcess("bench/webhooks-system.ts", { ...process.env, ...env }, `http://127.0.0.1:${ports.PORT}/readyz`, { ipc: true });
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
    log(`${mode}: ${SUBSCRIPTIONS} subscriptions, ${WARMUP} warm-up + ${LIVE} live events at ${RATE || "max"}/s, then a backlog of ${EVENTS} events, through POST /api/v9/workspaces/{id}/clients, ${RECEIVERS} receivers`);

    const created: string[] = [];
    const database = config.mysqlUrl ? pidsNamed("mariadbd", "mysqld") : [];
    const nats = config.natsUrl ? pidsNamed("nats-server") : [];
    const cpuNow = () => ({ system: cpuMs(child.pid!), database: cpuOf(database), nats: cpuOf(nats), bench: process.cpuUsage() });

    /** Creates `count` clients (at `rate` per second, 0 = at once); answers how long that took. */
    const create = async (count: number, rate: number): Promise<number> => {
      const started = Date.now();
      for (let i = 0; i < count; i++) {
        if (rate > 0) {
          const due = started + (i * 1000) / rate;
          if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
        created.push(String((await api(`/api/v9/workspaces/${workspaceId}/clients`, { name: `client ${created.length}` }, authorization)).id));
      }
      return (Date.now() - started) / 1000;
    };
    /** Resolves once every subscription has had every event created so far (or after 2 minutes). */
    const allArrived = async () => {
      const expected = SUBSCRIPTIONS * created.length;
      if (firsts.size >= expected) return;
      await new Promise<void>((resolve) => {
        const timeout = setTimeout(resolve, 120_000);
        phase = {
          expected,
          arrived: () => {
            clearTimeout(timeout);
            resolve();
          },
        };
      });
    };

    interface Row {
      name: string;
      ids: Set<string>;
      started: number;
      creatingSeconds: number;
      cpu: { before: ReturnType<typeof cpuNow>; after: ReturnType<typeof cpuNow> };
    }
    /** A timed row: `start` makes the events (and answers when the clock starts); then every delivery of them is awaited. */
    const timeRow = async (name: string, start: () => Promise<{ started: number; creatingSeconds: number; before: ReturnType<typeof cpuNow> }>): Promise<Row> => {
      const first = created.length;
      const { started, creatingSeconds, before } = await start();
      await allArrived();
      return { name, ids: new Set(created.slice(first)), started, creatingSeconds, cpu: { before, after: cpuNow() } };
    };

    // The first events pay for connections and compilation; they are checked, not timed.
    await create(WARMUP, RATE);
    await allArrived();
    const rows: Row[] = [];
    if (LIVE > 0) {
      rows.push(
        await timeRow("live", async () => {
          const before = cpuNow();
          const started = Date.now();
          return { started, before, creatingSeconds: await create(LIVE, RATE) };
        }),
      );
    }
    let earlyArrivals = 0;
    const backlog = await timeRow("backlog", async () => {
      await command(child, "hold");
      const first = created.length;
      const creatingSeconds = await create(EVENTS, 0);
      const queued = SUBSCRIPTIONS * EVENTS;
      const deadline = Date.now() + 120_000;
      while ((await pendingNotifications(ports.NOTIFIER_PORT)) < queued && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      const ids = new Set(created.slice(first));
      earlyArrivals = arrivals.filter((a) => ids.has(a.objectId)).length;
      const before = cpuNow();
      const started = Date.now();
      await command(child, "release");
      return { started, before, creatingSeconds };
    });
    rows.push(backlog);

    // Per subscription: the first arrival of each event, in arrival order, against creation order.
    const expected = SUBSCRIPTIONS * created.length;
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
    const benchCpu = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
    const figures = (row: Row) => {
      const timed = arrivals.filter((a) => row.ids.has(a.objectId));
      const delivered = new Set(timed.map((a) => `${a.subscription} ${a.objectId}`)).size;
      const seconds = (Math.max(...timed.map((a) => a.at)) - row.started) / 1000;
      const perDelivery = (before?: number, after?: number) => (before === undefined || after === undefined ? "n/a" : `${((after - before) / delivered).toFixed(3)} ms`);
      const { before, after } = row.cpu;
      return {
        timed,
        delivered,
        seconds,
        rate: delivered / seconds,
        latencies: timed.map((a) => a.latencyMs).sort((a, b) => a - b),
        sinceStart: timed.map((a) => a.at - row.started).sort((a, b) => a - b),
        // The first delivery of each event: the pipeline up to the notifier, without the fan-out.
        firstOfEvent: [...timed.reduce((m, a) => m.set(a.objectId, Math.min(m.get(a.objectId) ?? Infinity, a.latencyMs)), new Map<string, number>()).values()].sort((a, b) => a - b),
        cpu: `system process ${perDelivery(before.system, after.system)}, database ${perDelivery(before.database, after.database)}, NATS ${perDelivery(before.nats, after.nats)}, this process ${((benchCpu(after.bench) - benchCpu(before.bench)) / delivered).toFixed(3)} ms (receivers, client)`,
      };
    };
    const results = new Map(rows.map((row) => [row.name, figures(row)]));

    // The floor: the backlog's deliveries again, by a bare loop, one at a time per subscription.
    const bySubscription = new Map<string, Arrival[]>();
    const sent = new Set<string>();
    for (const a of results.get("backlog")!.timed) {
      if (sent.has(`${a.subscription} ${a.objectId}`)) continue;
      sent.add(`${a.subscription} ${a.objectId}`);
      bySubscription.set(a.path, [...(bySubscription.get(a.path) ?? []), a]);
    }
    const urlOf = new Map<string, string>();
    for (let i = 0; i < SUBSCRIPTIONS; i++) urlOf.set(`/s${i}`, `${receivers.urls[i % RECEIVERS]}/s${i}`);
    const lists: FloorRequest[][] = [...bySubscription].map(([path, list]) => list.map((a) => ({ url: urlOf.get(path)!, body: a.body, headers: a.headers })));
    let floorArrived = 0;
    receivers.onArrival = () => floorArrived++;
    // Beside the receivers, in this process; then as a process of its own, as the notifier is.
    const inside = await floorLoop(lists);
    const insideArrived = floorArrived;
    const file = join(mkdtempSync(join(tmpdir(), "webhooks-floor-")), "requests.json");
    writeFileSync(file, JSON.stringify(lists));
    // A process of its own, once by Node's http module and once by undici (the notifier's client).
    const ownProcess = async (client: FloorClient) => {
      const before = floorArrived;
      const receiversCpu = process.cpuUsage();
      const result = JSON.parse((await execFileAsync(process.execPath, [...profileArgs(), "--import", "tsx", "bench/webhooks-floor.ts", file, client], { cwd: join(import.meta.dirname, ".."), maxBuffer: 64 << 20 })).stdout) as FloorResult;
      return { client, result, arrived: floorArrived - before, receiversMs: benchCpu(process.cpuUsage(receiversCpu)) };
    };
    const apart = [await ownProcess("node:http"), await ownProcess("undici")];
    rmSync(dirname(file), { recursive: true, force: true });
    const metrics = await fetch(`http://127.0.0.1:${ports.NOTIFIER_PORT}/metrics`).then((r) => r.text());
    const attemptLatency = /^webhook_delivery_latency_seconds_sum(?:\{[^}]*\})? (\S+)$/m.exec(metrics)?.[1];
    const attempts = /^webhook_delivery_latency_seconds_count(?:\{[^}]*\})? (\S+)$/m.exec(metrics)?.[1];
    const b = results.get("backlog")!;
    const live = results.get("live");
    const liveRow = rows.find((r) => r.name === "live");
    console.log(
      [
        `mode                     ${mode}`,
        `subscriptions            ${SUBSCRIPTIONS}, after ${WARMUP} warm-up events (checked, not timed)`,
        `delivered                ${firsts.size} of ${expected} (lost ${lost}, duplicates ${duplicates}, order violations ${violations})`,
        ...(live && liveRow
          ? [
              `live                     ${SUBSCRIPTIONS} x ${LIVE} = ${live.delivered} deliveries, events created at ${RATE ? `${RATE}/s` : "the API's pace"} in ${liveRow.creatingSeconds.toFixed(2)} s, last delivered ${live.seconds.toFixed(2)} s after the first was created: ${Math.round(live.rate)} per second`,
              `  event -> delivery      p50 ${quantile(live.latencies, 0.5)} ms, p90 ${quantile(live.latencies, 0.9)} ms, p99 ${quantile(live.latencies, 0.99)} ms, max ${live.latencies[live.latencies.length - 1]} ms`,
              `  first of each event    p50 ${quantile(live.firstOfEvent, 0.5)} ms, p99 ${quantile(live.firstOfEvent, 0.99)} ms`,
              `  CPU per delivery       ${live.cpu} (the system process also runs the API and the tracking service making the events)`,
            ]
          : []),
        `backlog                  ${SUBSCRIPTIONS} x ${EVENTS} = ${b.delivered} deliveries queued while the dispatcher was held (created in ${backlog.creatingSeconds.toFixed(2)} s; ${earlyArrivals} arrived before the release), delivered in ${b.seconds.toFixed(2)} s after the release: ${Math.round(b.rate)} per second`,
        `  release -> delivery    p50 ${quantile(b.sinceStart, 0.5)} ms, p99 ${quantile(b.sinceStart, 0.99)} ms (when in the drain each arrived)`,
        `  CPU per delivery       ${b.cpu} (only the notifier works in the system process now)`,
        `receiver round trip      mean ${attemptLatency && attempts ? ((Number(attemptLatency) * 1000) / Number(attempts)).toFixed(2) : "?"} ms (request to answer, as the notifier measures it, all rows)`,
        `floor, one process       ${sent.size} POSTs of the backlog (${insideArrived} arrived) by a bare loop beside the receivers in ${inside.seconds.toFixed(2)} s: ${Math.round(sent.size / inside.seconds)} per second, round trip p50 ${quantile(inside.latencies, 0.5).toFixed(1)} ms, p99 ${quantile(inside.latencies, 0.99).toFixed(1)} ms; CPU per delivery ${(inside.cpuMs / sent.size).toFixed(3)} ms (loop and receivers)`,
        ...apart.map(
          ({ client, result, arrived, receiversMs }) =>
            `floor, own process       the same (${arrived} arrived) by the same loop with ${client.padEnd(9)} in a process of its own in ${result.seconds.toFixed(2)} s: ${Math.round(sent.size / result.seconds)} per second, round trip p50 ${quantile(result.latencies, 0.5).toFixed(1)} ms, p99 ${quantile(result.latencies, 0.99).toFixed(1)} ms; CPU per delivery ${(result.cpuMs / sent.size).toFixed(3)} ms (loop), ${(receiversMs / sent.size).toFixed(3)} ms (receivers)`,
        ),
        `backlog / floor          ${((b.rate / (sent.size / inside.seconds)) * 100).toFixed(0)}% of the one-process floor's deliveries per second; of the own-process floor's ${apart.map(({ client, result }) => `${((b.rate / (sent.size / result.seconds)) * 100).toFixed(0)}% (${client})`).join(", ")} (target >= 50%)`,
      ].join("\n"),
    );
    if (lost > 0 || violations > 0 || earlyArrivals > 0) process.exitCode = 1;
  } finally {
    await stopProcess(child);
    await receivers?.close();
    await cleanUp(config);
  }
}

await main();
