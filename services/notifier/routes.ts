import type { ConnectRouter } from "@connectrpc/connect";
import type { NotifierKit } from "./kit.js";
import { subscriptionHandlers } from "./subscriptions/handlers.js";
import { notificationHandlers } from "./notifications/handlers.js";

/**
 * Every resource of the notifier, each from its own folder. The internal WebhookAdminService
 * spans both: each resource registers its own RPCs of it.
 */
export function notifierRoutes(kit: NotifierKit) {
  const resources = [subscriptionHandlers(kit), notificationHandlers(kit)];
  return (router: ConnectRouter) => {
    for (const register of resources) register(router);
  };
}
