import type { ServiceFactory } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { accessInterceptor } from "../../lib/access.js";
import { migrations } from "./migrations.js";
import { hiringRoutes } from "./routes.js";

/** The hiring service: hiring workspaces, API keys, openings, candidates, categories, tags. */
export const createHiringService: ServiceFactory = async (deps) => {
  const storage = await ServiceStorage.open(deps, "hiring", migrations);
  return {
    name: "hiring",
    routes: hiringRoutes({ storage, clock: deps.clock }),
    // Every RPC acts for a hiring API key or for internal callers: nothing to resolve beyond the caller.
    access: accessInterceptor({}),
    ready: () => storage.ready(),
    start: async () => storage.startRelay(),
    close: () => storage.close(),
  };
};
