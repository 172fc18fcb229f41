import type { ConnectRouter } from "@connectrpc/connect";
import type { ResourceKit } from "../../lib/resource-kit.js";
import { clientHandlers } from "./clients/handlers.js";
import { projectHandlers } from "./projects/handlers.js";
import { taskHandlers } from "./tasks/handlers.js";
import { meHandlers } from "./me/handlers.js";
import { tagHandlers } from "./tags/handlers.js";
import { projectUserHandlers } from "./project-users/handlers.js";
import { projectGroupHandlers } from "./project-groups/handlers.js";
import { reminderHandlers } from "./reminders/handlers.js";
import { alertHandlers } from "./alerts/handlers.js";
import { timeEntryHandlers } from "./time-entries/handlers.js";
import { reportFilterHandlers } from "./report-filters/handlers.js";
import { reportHandlers } from "./reports/handlers.js";

/** Every resource of the tracking service, each from its own folder. */
export function trackingRoutes(kit: ResourceKit) {
  const resources = [clientHandlers(kit), projectHandlers(kit), taskHandlers(kit), meHandlers(kit), tagHandlers(kit), projectUserHandlers(kit), projectGroupHandlers(kit), reminderHandlers(kit), alertHandlers(kit), timeEntryHandlers(kit), reportFilterHandlers(kit), reportHandlers(kit)];
  return (router: ConnectRouter) => {
    for (const register of resources) register(router);
  };
}
