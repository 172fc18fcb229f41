import type { ConnectRouter } from "@connectrpc/connect";
import type { ServiceDeps, ServiceFactory, ServiceInstance } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { WorkspaceGate } from "../../lib/workspace-scope.js";
import { accessInterceptor } from "../../lib/access.js";
import { SecretBox } from "../../lib/secret-box.js";
import { migrations } from "./migrations.js";
import { NotifierStore } from "./store.js";
import { Dispatcher, type DispatcherOptions } from "./dispatcher.js";
import { createDeliverer, type DelivererOptions } from "./deliver.js";
import { Ingester } from "./ingest.js";
import { DeliveryMetrics } from "./metrics.js";
import { Pinger } from "./ping.js";
import { Retention, type RetentionOptions } from "./retention.js";
import { webhookAdminRoutes } from "./admin-api.js";
import { trackingWebhookRoutes } from "./tracking-webhooks-api.js";

const DAY_MS = 86_400_000;

/** What tests may change; production runs on the defaults. */
export interface NotifierOptions {
  delivery?: Omit<DelivererOptions, "allowInternal">;
  dispatcher?: DispatcherOptions;
  ingestLeaseMs?: number;
  /** By default WEBHOOK_RETENTION_DAYS, swept hourly. */
  retention?: Partial<RetentionOptions>;
}

/** The notifier with its parts in reach (tests drive the dispatcher and read the store). */
export interface Notifier extends ServiceInstance {
  store: NotifierStore;
  dispatcher: Dispatcher;
  counters: DeliveryMetrics;
  retention: Retention;
  /** Prometheus text: the counters and every subscription's queue depth (GET /metrics). */
  metrics(): Promise<string>;
}

/** The notifier: webhook subscriptions and ordered, retried delivery of the events they match. */
export async function openNotifier(deps: ServiceDeps, options: NotifierOptions = {}): Promise<Notifier> {
  const storage = await ServiceStorage.open(deps, "notifier", migrations);
  const store = new NotifierStore(storage.db, new SecretBox(deps.config.encryptionKey));
  // Subscriptions written before secrets were sealed are sealed before anything reads them.
  await store.sealPlainSubscriptions();
  const rules = { allowInternal: deps.config.webhookAllowInternal, resolve: options.delivery?.resolve };
  const deliver = createDeliverer({ ...rules, ...options.delivery });
  const metrics = new DeliveryMetrics(() => store.pendingCounts());
  const dispatcher = new Dispatcher(store, deliver, deps.clock, deps.log, metrics, { deliveryTimeoutMs: options.delivery?.timeoutMs, ...options.dispatcher });
  const ingester = new Ingester(store, deps.bus, deps.clock, deps.log, (ids) => dispatcher.notify(ids), { leaseMs: options.ingestLeaseMs });
  const pinger = new Pinger(store, deliver, deps.clock, deps.log);
  const retention = new Retention(store, deps.clock, deps.log, { ...options.retention, keepMs: options.retention?.keepMs ?? deps.config.webhookRetentionDays * DAY_MS });
  const workspaceGate = new WorkspaceGate(deps.directory, deps.clock);
  const admin = webhookAdminRoutes({ store, clock: deps.clock, rules, metrics, dispatcher });
  const api = trackingWebhookRoutes({ store, clock: deps.clock, rules, pinger, dispatcher });
  return {
    name: "notifier",
    routes: (router: ConnectRouter) => {
      admin(router);
      api(router);
    },
    access: accessInterceptor(workspaceGate.resolvers()),
    ready: async () => (await storage.ready()) && (await deps.bus.ready()),
    start: async () => {
      await dispatcher.start();
      await ingester.start();
      retention.start();
    },
    close: async () => {
      await ingester.stop();
      await dispatcher.stop();
      await retention.stop();
      await pinger.close();
      deliver.close();
      await storage.close();
    },
    metrics: () => metrics.exposition(),
    counters: metrics,
    store,
    dispatcher,
    retention,
  };
}

export const createNotifierService: ServiceFactory = (deps) => openNotifier(deps);
