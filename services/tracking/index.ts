import type { ServiceDeps, ServiceInstance } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { WorkspaceGate } from "../../lib/workspace-scope.js";
import { accessInterceptor } from "../../lib/access.js";
import { IdentityService } from "../../gen/accounts/v1/accounts_pb.js";
import { migrations } from "./migrations.js";
import { trackingRoutes } from "./routes.js";
import { trackingAccess } from "./scope.js";
import { ReminderScheduler } from "./reminders/scheduler.js";

/** The tracking service as tests see it: its reminder scheduler can be run at once. */
export interface TrackingService extends ServiceInstance {
  reminders: ReminderScheduler;
}

/** The tracking service: clients, projects, tasks, tags, project users and groups, time entries, alerts, track reminders. */
export const createTrackingService = async (deps: ServiceDeps): Promise<TrackingService> => {
  const storage = await ServiceStorage.open(deps, "tracking", migrations, { mail: true });
  const gate = new WorkspaceGate(deps.directory, deps.clock);
  const identity = deps.directory.peerClient("accounts", IdentityService);
  const reminders = new ReminderScheduler(storage, identity, deps);
  return {
    name: "tracking",
    routes: trackingRoutes({ storage, clock: deps.clock, identity }),
    access: accessInterceptor(trackingAccess(gate, storage.db, identity)),
    ready: () => storage.ready(),
    start: async () => {
      storage.startRelay();
      storage.startMailer();
      reminders.start();
    },
    reminders,
    close: async () => {
      await reminders.stop();
      await storage.close();
    },
  };
};
