import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { loadConfig, type Config } from "../../../lib/config.js";
import { createLogger } from "../../../lib/logger.js";
import { InProcessBus, JetStreamBus, type EventBus } from "../../../lib/bus.js";
import { Directory } from "../../../lib/directory.js";
import { sortableId } from "../../../lib/ids.js";
import type { Clock } from "../../../lib/clock.js";
import { cleanUp, testEnv, type TestContext } from "../../../test/support/harness.js";
import { openNotifier, type Notifier, type NotifierOptions } from "../index.js";

/**
 * Test helpers of the notifier, for its tests and the benchmark (never used in production): a
 * notifier on its own schema and stream, events as a service would publish them (receivers are
 * in test/support/harness.ts).
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
  await bus.publish([{ subject: `${event.service}.${event.workspaceId}.${event.entity}.${event.action}`, id, data: toBinary(EventSchema, event) }]);
  return id;
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
