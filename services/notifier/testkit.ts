import * as http from "node:http";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { EventSchema } from "../../gen/events/v1/event_pb.js";
import { WebhookAdminService } from "../../gen/notifier/v1/webhooks_pb.js";
import { loadConfig, type Config } from "../../lib/config.js";
import { createLogger } from "../../lib/logger.js";
import { InProcessBus, JetStreamBus, type EventBus } from "../../lib/bus.js";
import { Directory } from "../../lib/directory.js";
import { sortableId } from "../../lib/ids.js";
import type { Clock } from "../../lib/clock.js";
import { cleanUp, testEnv, type TestContext } from "../../test/support/harness.js";
import { openNotifier, type Notifier, type NotifierOptions } from "./index.js";

/**
 * Test helpers of the notifier, for its tests and the benchmark (never used in production): a
 * notifier on its own schema and stream, events as a service would publish them, receivers.
 */

export interface TestNotifier {
  notifier: Notifier;
  admin: Client<typeof WebhookAdminService>;
  bus: EventBus;
  config: Config;
  env: NodeJS.ProcessEnv;
}

/** A bus for the test's own stream: JetStream in the stack mode, else in-process. */
export async function openBus(config: Config): Promise<EventBus> {
  return config.natsUrl ? JetStreamBus.connect(config.natsUrl, config.natsPrefix, createLogger("silent")) : new InProcessBus();
}

/**
 * Starts a notifier alone (no gateway, no other service), isolated, and stops it at teardown.
 * Given `env`, it runs on that schema and stream (a replica) and the caller cleans up; given
 * `bus`, it uses that bus and the caller closes it.
 */
export async function startNotifier(
  t: TestContext,
  options: { clock: Clock; env?: NodeJS.ProcessEnv; extraEnv?: Record<string, string>; bus?: EventBus; notifier?: NotifierOptions },
): Promise<TestNotifier> {
  const env = options.env ?? testEnv(options.extraEnv);
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const bus = options.bus ?? (await openBus(config));
  const notifier = await openNotifier({ config, clock: options.clock, bus, log, directory: new Directory(config, log) }, options.notifier);
  await notifier.start();
  const admin = createClient(WebhookAdminService, createRouterTransport(notifier.routes));
  // Closing twice (a test stops it, then the teardown) closes once.
  const closeOnce = notifier.close;
  let closing: Promise<void> | undefined;
  notifier.close = () => (closing ??= closeOnce());
  t.teardown(async () => {
    await notifier.close();
    if (!options.bus) await bus.close();
    if (!options.env) await cleanUp(config);
  });
  return {
    notifier,
    admin,
    bus,
    config,
    env,
  };
}

let counter = 0;

/** Publishes an event as a service's outbox relay would; answers its id. Ids sort by publication. */
export async function publishEvent(
  bus: EventBus,
  e: { service?: string; workspaceId: string; entity?: string; action?: string; objectId?: string; userId?: bigint; at?: Date },
): Promise<string> {
  const id = `${sortableId().slice(0, 10)}${(++counter).toString(36).toUpperCase().padStart(6, "0")}${sortableId().slice(10, 20)}`;
  const event = create(EventSchema, {
    id,
    service: e.service ?? "tracking",
    workspaceId: e.workspaceId,
    entity: e.entity ?? "client",
    action: e.action ?? "created",
    userId: e.userId ?? 0n,
    occurredAt: timestampFromDate(e.at ?? new Date()),
    objectId: e.objectId ?? id,
  });
  await bus.publish({ subject: `${event.service}.${event.workspaceId}.${event.entity}.${event.action}`, id, data: toBinary(EventSchema, event) });
  return id;
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

/** Waits until `check` holds, looking every few milliseconds (for work the test cannot await). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = "condition"): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A deterministic random source (mulberry32), so a failing property run can be repeated. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
