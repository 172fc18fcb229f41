import type { ServiceFactory } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/runtime.js";
import { WorkspaceGate } from "../../lib/access.js";
import { migrations } from "./migrations.js";
import { clientRoutes } from "./service.js";

/** The tracking service: clients (and, later, time entries, projects, tags, preferences). */
export const createTrackingService: ServiceFactory = async (deps) => {
  const storage = await ServiceStorage.open(deps, "tracking", migrations);
  const gate = new WorkspaceGate(deps.directory);
  return {
    name: "tracking",
    routes: clientRoutes(storage, gate, deps.clock),
    ready: () => storage.ready(),
    start: async () => storage.startRelay(),
    close: () => storage.close(),
  };
};
