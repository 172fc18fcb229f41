import * as http from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { loadConfig, type Config } from "../lib/config.js";
import { cleanUp, freePort } from "../test/support/harness.js";
import { cpuMs, log, startProcess, stopProcess } from "./support.js";

/**
 * What the HTTP benchmarks share: the whole system started in a child process on its own data
 * (or its own MySQL databases and NATS stream), a fixed-concurrency load loop with latency
 * percentiles and CPU per request, a keep-alive GET, and the figures as a Markdown table.
 */

export interface Measurement {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  /** CPU time per request, ms: of the server's process, and of this one (the client, or the direct queries). */
  serverCpu?: number;
  benchCpu: number;
}

/**
 * The gateway's share of the bare server's throughput (and of its CPU per request, when both were
 * read), beside the target when there is one: the line the hiring and tracking benches print for
 * each row. `bareName` names the other side when it is not the plain bare server.
 */
export function gatewayShare(row: string, gateway: Measurement, bare: Measurement, targetPct?: number, bareName = "bare server"): string {
  // On a shared machine throughput follows the neighbours' load; CPU per request does not.
  const byCpu = gateway.serverCpu && bare.serverCpu ? `; by server CPU per request ${((bare.serverCpu / gateway.serverCpu) * 100).toFixed(0)}%` : "";
  const target = targetPct === undefined ? "" : ` (target >= ${targetPct}%)`;
  return `gateway / ${bareName}, ${row}: by throughput ${((gateway.rps / bare.rps) * 100).toFixed(0)}%${byCpu}${target}`;
}

export interface LoadOptions {
  concurrency: number;
  /** The loop ends after this many seconds even if requests remain. */
  seconds: number;
  /** The loop goes on past its count of requests until this many seconds have passed (within `seconds`). */
  minSeconds?: number;
  /** The server's process, whose CPU time is read before and after. */
  serverPid?: number;
}

/** What one run of the load loop saw, before it is summed up. */
interface Sample {
  latencies: number[];
  errors: number;
  seconds: number;
  /** CPU ms of the server's process (undefined without its pid or /proc), and of this one. */
  serverCpuMs?: number;
  benchCpuMs: number;
}

/**
 * Runs `request` `count` times (and on until `minSeconds` have passed), or for `seconds`, whichever
 * ends first, `concurrency` at a time, and reads the CPU time the server's process (if given) and
 * this one spent meanwhile.
 */
async function sample(count: number, request: () => Promise<boolean>, options: LoadOptions): Promise<Sample> {
  const latencies: number[] = [];
  const serverBefore = options.serverPid === undefined ? undefined : cpuMs(options.serverPid);
  const benchBefore = process.cpuUsage();
  let errors = 0;
  let next = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + options.seconds * 1000;
  const until = Date.now() + (options.minSeconds ?? 0) * 1000;
  const worker = async () => {
    while ((next < count || Date.now() < until) && Date.now() < deadline) {
      next++;
      const t0 = process.hrtime.bigint();
      const ok = await request().catch(() => false);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const serverAfter = options.serverPid === undefined ? undefined : cpuMs(options.serverPid);
  const bench = process.cpuUsage(benchBefore);
  return {
    latencies,
    errors,
    seconds,
    serverCpuMs: serverAfter === undefined || serverBefore === undefined ? undefined : serverAfter - serverBefore,
    benchCpuMs: (bench.user + bench.system) / 1000,
  };
}

/** The figures of one or more samples of the same request, taken as one run. */
function summarize(samples: Sample[]): Measurement {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const n = latencies.length;
  const sum = (f: (s: Sample) => number) => samples.reduce((total, s) => total + f(s), 0);
  const pct = (p: number) => latencies[Math.min(n - 1, Math.floor(p * n))];
  const serverKnown = samples.every((s) => s.serverCpuMs !== undefined);
  return {
    requests: n,
    rps: n / sum((s) => s.seconds),
    p50: pct(0.5),
    p95: pct(0.95),
    p99: pct(0.99),
    errors: sum((s) => s.errors),
    serverCpu: serverKnown ? sum((s) => s.serverCpuMs!) / n : undefined,
    benchCpu: sum((s) => s.benchCpuMs) / n,
  };
}

/** One run of the load loop (see `sample`), summed up. */
export async function measure(count: number, request: () => Promise<boolean>, options: LoadOptions): Promise<Measurement> {
  return summarize([await sample(count, request, options)]);
}

/**
 * Rounds each comparison is split into (BENCH_ROUNDS, 3): the paths take turns, so that a
 * neighbour's load on a shared machine, which comes and goes over seconds, falls on all of them
 * alike instead of on whichever row it happened to meet.
 */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

/**
 * Seconds a path's turn in a round lasts at least (BENCH_ROUND_SECONDS, 1): its requests go on past
 * its share of the row's count until then. The server's CPU time is read from /proc in ticks of
 * 10 ms, and a fast read's share of 1,000 requests (333 a turn at 10,000 a second) lasted 33 ms: its
 * CPU per request was known to about a third. A turn of a second reads it to about 1%.
 */
export const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 1);

/** What a row of `compare` runs, as the benches' headings say it. */
export function rowBudget(requests: number, seconds: number): string {
  return `${requests} requests (each turn at least ${ROUND_SECONDS} s) or ${seconds} s per row`;
}

/** One path of a comparison: its name, its request and the process that answers it. */
export interface ComparedPath {
  path: string;
  request: () => Promise<boolean>;
  serverPid?: number;
}

/**
 * The same query by several paths (the gateway and a bare server): each warmed up, then ROUNDS
 * rounds in which each path in turn runs its share of `count` requests and `seconds` (and on
 * for at least ROUND_SECONDS); each path's rounds are summed up as one measurement.
 */
export async function compare(paths: ComparedPath[], count: number, options: Omit<LoadOptions, "serverPid">): Promise<{ path: string; m: Measurement }[]> {
  for (const p of paths) {
    await settle();
    await warmUp(p.request, { ...options, serverPid: p.serverPid });
  }
  const samples = paths.map((): Sample[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, p] of paths.entries()) {
      // A path whose requests never leave this process (direct knex: synchronous SQLite, then
      // promises only) can keep the event loop from its timers and sockets for its whole turn: the
      // next path must not send on kept-alive connections a server closed meanwhile, unnoticed.
      await settle();
      samples[i].push(await sample(Math.ceil(count / ROUNDS), p.request, { ...options, seconds: options.seconds / ROUNDS, minSeconds: ROUND_SECONDS, serverPid: p.serverPid }));
    }
    const figures = paths.map((p, i) => {
      const s = samples[i][round];
      const cpu = s.serverCpuMs === undefined ? "" : `, ${(s.serverCpuMs / s.latencies.length).toFixed(3)} CPU ms/req`;
      return `${p.path} ${(s.latencies.length / s.seconds).toFixed(0)} req/s${cpu}`;
    });
    log(`    round ${round + 1}: ${figures.join("; ")}`);
  }
  return paths.map((p, i) => ({ path: p.path, m: summarize(samples[i]) }));
}

/** Lets the event loop run its timers and socket events (closed connections, idle timeouts) before a turn. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Seconds each row runs unmeasured first (BENCH_WARMUP_SECONDS, 3), so that both servers are
 * measured warm: the gateway path runs far more code than a bare server, and a few dozen
 * requests leave much of it not yet optimized by the JIT.
 */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

/** Runs `request` for WARMUP_SECONDS, measuring nothing. */
export async function warmUp(request: () => Promise<boolean>, options: LoadOptions): Promise<void> {
  await measure(Number.MAX_SAFE_INTEGER, request, { ...options, seconds: WARMUP_SECONDS });
}

/**
 * A keep-alive agent for `concurrency` requests at a time whose idle connections close after 2 s,
 * before the servers' own keep-alive timeout (the gateway's is 5 s). A path's connections idle
 * while the other path runs its round; one the server closed just as the client sent on it
 * would fail that request (ECONNRESET).
 */
export function benchAgent(concurrency: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: concurrency, timeout: 2_000 });
}

/** GET on a loopback port with the given headers; resolves with the status and the body. */
export function httpGet(agent: http.Agent, port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return httpSend(agent, port, "GET", path, headers);
}

/** A request on a loopback port, with `body` as JSON if given; resolves with the status and the body. */
export function httpSend(agent: http.Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: "127.0.0.1", port, path, method, agent, headers: data ? { ...headers, "content-type": "application/json" } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(data);
  });
}

/** A Markdown table row. */
export const tableLine = (cells: string[]) => `| ${cells.join(" | ")} |`;

/** CPU milliseconds as printed ("n/a" where /proc is missing). */
export const cpuCell = (ms: number | undefined) => (ms === undefined ? "n/a" : ms.toFixed(3));

/** The system under measurement: its process, ports, environment and configuration. */
export interface BenchSystem {
  env: NodeJS.ProcessEnv;
  config: Config;
  ports: { gateway: number; hiring: number; accounts: number; tracking: number; notifier: number; bare: number };
  process: ChildProcess;
  /** "embedded (SQLite, in-process bus)" or the MySQL and NATS it runs on. */
  mode: string;
  /** Stops the system (and the processes given) and drops its data. */
  stop(others?: ChildProcess[]): Promise<void>;
}

/** What a system runs on, as the benches print it. */
export function benchMode(config: Config): string {
  return config.mysqlUrl ? `MySQL ${new URL(config.mysqlUrl).host} + NATS ${config.natsUrl ?? "(in-process bus)"}` : "embedded (SQLite, in-process bus)";
}

/** Starts the whole system (`cmd/start.ts`) on its own data directory, database prefix and stream prefix. */
export async function startBenchSystem(): Promise<BenchSystem> {
  const id = `bench${randomBytes(3).toString("hex")}_`;
  const ports = { gateway: await freePort(), hiring: await freePort(), accounts: await freePort(), tracking: await freePort(), notifier: await freePort(), bare: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), "workhub-bench-")),
    DATABASE_PREFIX: id,
    NATS_PREFIX: id,
    INTERNAL_TOKEN: "",
    PORT: String(ports.gateway),
    HIRING_PORT: String(ports.hiring),
    ACCOUNTS_PORT: String(ports.accounts),
    TRACKING_PORT: String(ports.tracking),
    NOTIFIER_PORT: String(ports.notifier),
    HIRING_URL: `http://127.0.0.1:${ports.hiring}`,
    ACCOUNTS_URL: `http://127.0.0.1:${ports.accounts}`,
    TRACKING_URL: `http://127.0.0.1:${ports.tracking}`,
    NOTIFIER_URL: `http://127.0.0.1:${ports.notifier}`,
    LOG_LEVEL: "warn",
  };
  const config = loadConfig(env);
  const mode = benchMode(config);
  const system = await startProcess("cmd/start.ts", env, `http://127.0.0.1:${ports.gateway}/readyz`);
  return {
    env,
    config,
    ports,
    process: system,
    mode,
    async stop(others = []) {
      for (const child of [system, ...others]) await stopProcess(child);
      await cleanUp(config);
    },
  };
}
