import type { ServiceDeps, ServiceInstance } from "../../lib/service.js";
import { SecretBox } from "../../lib/secret-box.js";
import { ServiceStorage } from "../../lib/storage.js";
import { accessInterceptor } from "../../lib/access.js";
import { accountsAccess } from "./access.js";
import { migrations } from "./migrations.js";
import { accountsRoutes } from "./routes.js";
import { AccountsStore } from "./users/store.js";
import { Authentication } from "./users/authentication.js";
import { AuditRecorder } from "./audit-logs/recorder.js";
import { FileBlobStore } from "../../lib/blobs.js";
import { WorkspaceRateScheduler } from "./rates/scheduler.js";

/** The accounts service as tests see it: its rates scheduler can be run at once. */
export interface AccountsService extends ServiceInstance {
  rates: WorkspaceRateScheduler;
}

/** The accounts service: users, sessions, API tokens, organizations and workspaces. */
export const createAccountsService = async (deps: ServiceDeps): Promise<AccountsService> => {
  const storage = await ServiceStorage.open(deps, "accounts", migrations, { mail: true });
  const box = new SecretBox(deps.config.encryptionKey);
  const auth = new Authentication(new AccountsStore(storage.db), deps.clock, box, deps.log);
  const audit = new AuditRecorder(storage.db, deps.bus, deps.log);
  const rates = new WorkspaceRateScheduler(storage, deps);
  return {
    name: "accounts",
    routes: accountsRoutes({ storage, clock: deps.clock, log: deps.log, box, auth, publicUrl: deps.config.publicUrl, blobs: new FileBlobStore(deps.config.blobDir) }),
    access: accessInterceptor(accountsAccess(storage.db)),
    ready: () => storage.ready(),
    start: async () => {
      storage.startRelay();
      storage.startMailer();
      await audit.start();
      rates.start();
    },
    rates,
    // Stops the audit consumer, the rates scheduler, the relay and the mailer, then closes the database.
    close: async () => {
      await audit.stop();
      await rates.stop();
      await storage.close();
    },
  };
};
