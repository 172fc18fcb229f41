import type { ServiceFactory } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { migrations } from "./migrations.js";
import { hiringRoutes } from "./service.js";

/** The hiring service: hiring workspaces, API keys, openings, candidates, categories, tags. */
export const createHiringService: ServiceFactory = async (deps) => {
  const storage = await ServiceStorage.open(deps, "hiring", migrations);
  return {
    name: "hiring",
    routes: hiringRoutes(storage, deps.clock),
    ready: () => storage.ready(),
    start: async () => storage.startRelay(),
    close: () => storage.close(),
  };
};
