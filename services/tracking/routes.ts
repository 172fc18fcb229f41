import type { ConnectRouter } from "@connectrpc/connect";
import type { ResourceKit } from "../../lib/resource-kit.js";
import { clientHandlers } from "./clients/handlers.js";

/** Every resource of the tracking service, each from its own folder. */
export function trackingRoutes(kit: ResourceKit) {
  const resources = [clientHandlers(kit)];
  return (router: ConnectRouter) => {
    for (const register of resources) register(router);
  };
}
