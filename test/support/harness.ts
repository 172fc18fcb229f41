import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { randomBytes } from "node:crypto";
import * as http from "node:http";
import * as net from "node:net";
import { connect } from "nats";
import { loadConfig, SERVICE_NAMES, type Config, type ServiceName } from "../../lib/config.js";
import { dropDatabase } from "../../lib/db.js";
import { createLogger } from "../../lib/logger.js";
import { jsonIds } from "../../lib/ids.js";
import type { Clock } from "../../lib/clock.js";
import { startSystem, type System } from "../../cmd/system.js";

/** tap's test object, as far as the harness needs it. */
export interface TestContext {
  teardown(fn: () => unknown): void;
}

/** Listens on the port (0: one the kernel chooses) and closes again; the port listened on, or undefined when it was taken. */
async function listenOnce(port: number): Promise<number | undefined> {
  const server = net.createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (!listening) return undefined;
  const chosen = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return chosen;
}

/** The lowest port the kernel hands out by itself (to outgoing connections and listeners on port 0). */
const EPHEMERAL_LOW = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();
const LOWEST_PORT = 10_000;

/**
 * A port that was free a moment ago (for a process the test or a benchmark starts itself), drawn
 * below the kernel's ephemeral range: until the process listens on it, the kernel may give a port
 * of that range to any outgoing connection or listener on port 0 of the tests running beside this
 * one, which then failed to start with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50 && EPHEMERAL_LOW > LOWEST_PORT; attempt++) {
    const port = await listenOnce(LOWEST_PORT + Math.floor(Math.random() * (EPHEMERAL_LOW - LOWEST_PORT)));
    if (port !== undefined) return port;
  }
  return (await listenOnce(0))!;
}

/** True when the suite runs against MariaDB and NATS JetStream (the stack mode of CI). */
export const STACK_MODE = Boolean(process.env.MYSQL_URL && process.env.NATS_URL);

/** The environment of one isolated system: its own data directory, databases and stream. */
export function testEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const id = `t${randomBytes(4).toString("hex")}_`;
  return {
    DATA_DIR: mkdtempSync(join(tmpdir(), "workhub-test-")),
    MYSQL_URL: process.env.MYSQL_URL ?? "",
    NATS_URL: process.env.NATS_URL ?? "",
    DATABASE_PREFIX: id,
    NATS_PREFIX: id,
    PORT: "0",
    HIRING_PORT: "0",
    ACCOUNTS_PORT: "0",
    TRACKING_PORT: "0",
    NOTIFIER_PORT: "0",
    WEBHOOK_ALLOW_INTERNAL: "1",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    ...extra,
  };
}

/** Removes what a test system left behind: databases, the stream, the data directory. */
export async function cleanUp(config: Config): Promise<void> {
  for (const name of SERVICE_NAMES) await dropDatabase(config, name);
  if (config.natsUrl) {
    const nc = await connect({ servers: config.natsUrl });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`${config.natsPrefix}EVENTS`).catch(() => undefined);
    await nc.close();
  }
  rmSync(config.dataDir, { recursive: true, force: true });
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
  text: string;
}

export interface Credentials {
  basic?: [string, string];
  bearer?: string;
  cookie?: string;
}

export interface TestSystem extends System {
  url: string;
  env: NodeJS.ProcessEnv;
  api(method: string, path: string, options?: { auth?: Credentials; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse>;
  /** Signs a new user up; returns what later calls need. */
  signup(name?: string): Promise<TrackUser>;
}

export interface TrackUser {
  id: number;
  email: string;
  password: string;
  apiToken: string;
  workspaceId: number;
  /** Basic credentials with the API token. */
  auth: Credentials;
}

/**
 * ANSWERS_DIR=<dir>: every request a test makes through `api` and its whole answer, appended to one
 * file per test file, to compare what two commits answer to the suite's requests (docs/ids.md).
 */
function recordAnswer(method: string, path: string, body: string | undefined, status: number, text: string): void {
  const dir = process.env.ANSWERS_DIR;
  if (!dir) return;
  const file = relative(join(import.meta.dirname, "../.."), process.argv[1] ?? "unknown").replace(/[/\\]/g, "_");
  appendFileSync(join(dir, `${file}.log`), `${method} ${path} ${body ?? ""}\n${status} ${text}\n`);
}

/**
 * Starts the services (by default every one) and the gateway in this process, isolated, and
 * stops it at teardown. A service left out is called at its configured URL.
 */
export async function startTestSystem(t: TestContext, options: { clock?: Clock; env?: Record<string, string>; services?: readonly ServiceName[] } = {}): Promise<TestSystem> {
  // Links in answers and mail are on PUBLIC_URL: the gateway's own address, so that a test can follow them.
  const port = options.env?.PORT ?? String(await freePort());
  const env = testEnv({ PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}`, ...options.env });
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const system = await startSystem({ config, services: options.services ?? SERVICE_NAMES, gateway: true, clock: options.clock, log, host: "127.0.0.1" });
  t.teardown(async () => {
    await system.close();
    await cleanUp(config);
  });
  const url = system.gatewayUrl!;
  const api: TestSystem["api"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const auth = opts.auth;
    if (auth?.basic) headers.authorization = `Basic ${Buffer.from(`${auth.basic[0]}:${auth.basic[1]}`).toString("base64")}`;
    if (auth?.bearer) headers.authorization = `Bearer ${auth.bearer}`;
    if (auth?.cookie) headers.cookie = auth.cookie;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body, jsonIds);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${url}${path}`, { method, headers, body });
    const text = await res.text();
    recordAnswer(method, path, body, res.status, text);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  let counter = 0;
  const signup: TestSystem["signup"] = async (name = "user") => {
    const email = `${name}${++counter}.${randomBytes(3).toString("hex")}@example.com`;
    const password = "correct horse battery";
    const res = await api("POST", "/api/signup", { body: { email, password, display_name: name, timezone: "UTC" } });
    if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${res.text}`);
    return {
      id: res.body.id,
      email,
      password,
      apiToken: res.body.api_token,
      workspaceId: res.body.default_workspace_id,
      auth: { basic: [res.body.api_token, "api_token"] },
    };
  };
  return Object.assign(system, { url, env, api, signup });
}

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  /** Status the receiver answered. */
  status: number;
}

export type Answer = number | { status: number; body?: string; delayMs?: number };

/**
 * A webhook receiver on loopback; `respond` decides each answer (status, body, delay). Paths
 * tell subscriptions apart: `url(name)` is a callback URL for one of them.
 */
export async function startReceiver(t: TestContext, respond: (req: Received, n: number) => Answer | Promise<Answer> = () => 200) {
  const received: Received[] = [];
  let waiters: { check: () => boolean; resolve: () => void }[] = [];
  // Requests of one path between their arrival and the end of their answer.
  const inFlight = new Map<string, number>();
  const overlaps = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? "";
    const busy = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, busy);
    if (busy > 1) overlaps.set(path, (overlaps.get(path) ?? 0) + 1);
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const entry: Received = { path: req.url ?? "", headers: req.headers, body, json, status: 0 };
      const answer = await respond(entry, received.length + 1);
      const a = typeof answer === "number" ? { status: answer } : answer;
      entry.status = a.status;
      received.push(entry);
      if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs));
      inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
      if (!res.destroyed) {
        res.writeHead(a.status, a.status >= 300 && a.status < 400 ? { location: `http://127.0.0.1:${port}/redirected` } : { "content-type": "application/json" });
        res.end(a.body ?? "");
      }
      waiters = waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    port,
    server,
    url: (name = "hook") => `http://127.0.0.1:${port}/${name}`,
    received,
    /** How often a request of a path came while another of the same path was unanswered. */
    overlaps,
    /** Resolves once `check` holds after a request; rejects after `timeoutMs`. */
    until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
      if (check()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver: condition not met after ${received.length} requests`)), timeoutMs);
        waiters.push({ check, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}
