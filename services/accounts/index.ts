import type { ServiceFactory } from "../../lib/service.js";
import { SecretBox } from "../../lib/secret-box.js";
import { ServiceStorage } from "../../lib/storage.js";
import { migrations } from "./migrations.js";
import { accountsRoutes } from "./service.js";

/** The accounts service: users, sessions, API tokens, organizations and workspaces. */
export const createAccountsService: ServiceFactory = async (deps) => {
  const storage = await ServiceStorage.open(deps, "accounts", migrations);
  return {
    name: "accounts",
    routes: accountsRoutes(storage, { clock: deps.clock, box: new SecretBox(deps.config.encryptionKey), log: deps.log }),
    ready: () => storage.ready(),
    start: async () => storage.startRelay(),
    close: () => storage.close(),
  };
};
