import type { ServiceDeps, ServiceFactory, ServiceInstance } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { WorkspaceGate } from "../../lib/workspace-scope.js";
import { accessInterceptor } from "../../lib/access.js";
import { SecretBox } from "../../lib/secret-box.js";
import { migrations } from "./migrations.js";
import { notifierRoutes } from "./routes.js";
import { SubscriptionStore } from "./subscriptions/store.js";
import { NotificationStore } from "./notifications/store.js";
import { createDeliverer, type DelivererOptions } from "./delivery/deliver.js";
import { Dispatcher, type DispatcherOptions } from "./delivery/dispatcher.js";
import { DispatchStore } from "./delivery/dispatch-store.js";
import { Ingester } from "./delivery/ingest.js";
import { IngestStore } from "./delivery/ingest-store.js";
import { DeliveryMetrics } from "./delivery/metrics.js";
import { Pinger } from "./delivery/ping.js";
import { Retention, type RetentionOptions } from "./delivery/retention.js";
import { RetentionStore } from "./delivery/retention-store.js";

const DAY_MS = 86_400_000;

/** What tests may change; production runs on the defaults. */
export interface NotifierOptions {
  delivery?: Omit<DelivererOptions, "allowInternal">;
  dispatcher?: DispatcherOptions;
  ingestLeaseMs?: number;
  /** By default WEBHOOK_RETENTION_DAYS, swept hourly. */
  retention?: Partial<RetentionOptions>;
}

/** The notifier's stores: its resources' and its delivery parts'. */
export interface NotifierStores {
  subscriptions: SubscriptionStore;
  notifications: NotificationStore;
  dispatch: DispatchStore;
  ingest: IngestStore;
  retention: RetentionStore;
}

/** The notifier with its parts in reach (tests drive the dispatcher and read the stores). */
export interface Notifier extends ServiceInstance {
  stores: NotifierStores;
  dispatcher: Dispatcher;
  counters: DeliveryMetrics;
  retention: Retention;
  /** Prometheus text: the counters and every subscription's queue depth (GET /metrics). */
  metrics(): Promise<string>;
}

/** The notifier: webhook subscriptions and ordered, retried delivery of the events they match. */
export async function openNotifier(deps: ServiceDeps, options: NotifierOptions = {}): Promise<Notifier> {
  const storage = await ServiceStorage.open(deps, "notifier", migrations);
  const box = new SecretBox(deps.config.encryptionKey);
  const stores: NotifierStores = {
    subscriptions: new SubscriptionStore(storage, box),
    notifications: new NotificationStore(storage.db),
    dispatch: new DispatchStore(storage.db, box),
    ingest: new IngestStore(storage.db),
    retention: new RetentionStore(storage.db),
  };
  // Subscriptions written before secrets were sealed are sealed before anything reads them.
  await stores.subscriptions.sealPlain();
  const targets = { allowInternal: deps.config.webhookAllowInternal, resolve: options.delivery?.resolve };
  const deliver = createDeliverer({ ...targets, ...options.delivery });
  const metrics = new DeliveryMetrics(() => stores.notifications.pendingCounts());
  const dispatcher = new Dispatcher(stores.dispatch, deliver, deps.clock, deps.log, metrics, { deliveryTimeoutMs: options.delivery?.timeoutMs, ...options.dispatcher });
  const ingester = new Ingester(stores.ingest, stores.subscriptions, deps.bus, deps.clock, deps.log, (ids) => dispatcher.notify(ids), { leaseMs: options.ingestLeaseMs });
  const pinger = new Pinger(stores.subscriptions, stores.notifications, deliver, deps.clock, deps.log);
  const retention = new Retention(stores.retention, deps.clock, deps.log, { ...options.retention, keepMs: options.retention?.keepMs ?? deps.config.webhookRetentionDays * DAY_MS });
  const workspaceGate = new WorkspaceGate(deps.directory, deps.clock);
  return {
    name: "notifier",
    routes: notifierRoutes({ clock: deps.clock, subscriptions: stores.subscriptions, notifications: stores.notifications, targets, pinger, dispatcher, metrics }),
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
    stores,
    dispatcher,
    retention,
  };
}

export const createNotifierService: ServiceFactory = (deps) => openNotifier(deps);
