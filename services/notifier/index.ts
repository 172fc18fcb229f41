import type { ServiceFactory } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/runtime.js";
import type { Consumer } from "../../lib/bus.js";
import { migrations } from "./migrations.js";
import { NotifierStore } from "./store.js";
import { Dispatcher } from "./dispatcher.js";
import { createDeliverer } from "./deliver.js";
import { createIngest, webhookAdminRoutes } from "./service.js";

/** Durable consumer name of the notifier on the EVENTS stream. */
export const NOTIFIER_CONSUMER = "notifier";

/** The notifier: webhook subscriptions and ordered, retried delivery of the events they match. */
export const createNotifierService: ServiceFactory = async (deps) => {
  const storage = await ServiceStorage.open(deps, "notifier", migrations);
  const store = new NotifierStore(storage.db);
  const rules = { allowInternal: deps.config.webhookAllowInternal };
  const deliverer = createDeliverer(rules);
  const dispatcher = new Dispatcher(store, deliverer, deps.clock, deps.log);
  let consumer: Consumer | undefined;
  return {
    name: "notifier",
    routes: webhookAdminRoutes(store, deps.clock, rules),
    ready: async () => (await storage.ready()) && (await deps.bus.ready()),
    start: async () => {
      consumer = await deps.bus.consume(`${deps.config.natsPrefix}${NOTIFIER_CONSUMER}`.replace(/[^A-Za-z0-9_-]/g, "_"), createIngest(store, deps.clock, () => dispatcher.kick()));
      dispatcher.start();
    },
    close: async () => {
      await consumer?.stop();
      await dispatcher.stop();
      deliverer.close();
      await storage.close();
    },
  };
};
