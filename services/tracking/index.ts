import type { ServiceDeps, ServiceInstance } from "../../lib/service.js";
import { ServiceStorage } from "../../lib/storage.js";
import { WorkspaceGate } from "../../lib/workspace-scope.js";
import { accessInterceptor } from "../../lib/access.js";
import { IdentityService } from "../../gen/accounts/v1/accounts_pb.js";
import { migrations } from "./migrations.js";
import { trackingRoutes } from "./routes.js";
import { trackingAccess } from "./scope.js";
import { ReminderScheduler } from "./reminders/scheduler.js";
import { ScheduledReportScheduler } from "./scheduled-reports/scheduler.js";
import { RateScheduler } from "./rates/scheduler.js";
import { SecretBox } from "../../lib/secret-box.js";
import { ImportWorker } from "./imports/worker.js";
import { InvitationService } from "../../gen/accounts/v1/invitations_pb.js";
import { GroupService } from "../../gen/accounts/v1/groups_pb.js";
import { ExportWorker } from "./exports/worker.js";
import { WorkspaceRateService } from "../../gen/accounts/v1/rates_pb.js";
import { ImportAdoptions } from "./imports/adoption.js";

/** The tracking service as tests see it: its reminder and scheduled report schedulers can be run at once. */
export interface TrackingService extends ServiceInstance {
  reminders: ReminderScheduler;
  scheduledReports: ScheduledReportScheduler;
  rates: RateScheduler;
  imports: ImportWorker;
  exports: ExportWorker;
  adoptions: ImportAdoptions;
}

/** The tracking service: clients, projects, tasks, tags, project users and groups, time entries, alerts, track reminders, saved and scheduled reports. */
export const createTrackingService = async (deps: ServiceDeps): Promise<TrackingService> => {
  const storage = await ServiceStorage.open(deps, "tracking", migrations, { mail: true });
  const gate = new WorkspaceGate(deps.directory, deps.clock);
  const identity = deps.directory.peerClient("accounts", IdentityService);
  const access = trackingAccess(gate, storage.db, identity);
  const reminders = new ReminderScheduler(storage, identity, deps);
  const rates = new RateScheduler(storage, deps);
  const box = new SecretBox(deps.config.encryptionKey);
  const imports = new ImportWorker(storage, { identity, invitations: deps.directory.peerClient("accounts", InvitationService), groups: deps.directory.peerClient("accounts", GroupService), memberScope: access.member }, deps);
  const adoptions = new ImportAdoptions(storage, deps.bus, deps);
  const scheduledReports = new ScheduledReportScheduler(storage, identity, { clock: deps.clock, log: deps.log, box, publicUrl: deps.config.publicUrl, memberScope: access.member });
  const { exportDir, exportRetentionDays } = deps.config;
  const exportWorker = new ExportWorker(storage, { clock: deps.clock, log: deps.log, directory: deps.directory, identity, memberScope: access.member, publicUrl: deps.config.publicUrl, dir: exportDir, retentionDays: exportRetentionDays });
  return {
    name: "tracking",
    routes: trackingRoutes({ storage, clock: deps.clock, identity, box, memberScope: access.member, imports, exports: { dir: exportDir, kick: () => exportWorker.kick() }, workspaceRates: deps.directory.peerClient("accounts", WorkspaceRateService) }),
    access: accessInterceptor(access),
    ready: () => storage.ready(),
    start: async () => {
      storage.startRelay();
      storage.startMailer();
      reminders.start();
      scheduledReports.start();
      rates.start();
      imports.start();
      exportWorker.start();
      await adoptions.start();
    },
    reminders,
    scheduledReports,
    rates,
    imports,
    exports: exportWorker,
    adoptions,
    close: async () => {
      await adoptions.stop();
      await reminders.stop();
      await scheduledReports.stop();
      await rates.stop();
      await imports.stop();
      await exportWorker.stop();
      await storage.close();
    },
  };
};
