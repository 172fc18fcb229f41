import type { ServiceFactory } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { WorkspaceGate } from "../../lib/workspace-scope.js";
import { migrations } from "./migrations.js";
import { trackingRoutes } from "./routes.js";

/** The tracking service: clients (and, later, time entries, projects, tags, preferences). */
export const createTrackingService: ServiceFactory = async (deps) => {
  const storage = await ServiceStorage.open(deps, "tracking", migrations);
  const gate = new WorkspaceGate(deps.directory, deps.clock);
  return {
    name: "tracking",
    routes: trackingRoutes({ storage, gate, clock: deps.clock }),
    ready: () => storage.ready(),
    start: async () => storage.startRelay(),
    close: () => storage.close(),
  };
};
