import type { ConnectRouter } from "@connectrpc/connect";
import type { TrackingKit } from "./kit.js";
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
import { savedReportHandlers } from "./saved-reports/handlers.js";
import { scheduledReportHandlers } from "./scheduled-reports/handlers.js";
import { insightHandlers } from "./insights/handlers.js";
import { dashboardHandlers } from "./dashboard/handlers.js";
import { rateHandlers } from "./rates/handlers.js";
import { favoriteHandlers } from "./favorites/handlers.js";
import { goalHandlers } from "./goals/handlers.js";
import { timeEntryNoteHandlers } from "./time-entry-notes/handlers.js";
import { icalHandlers } from "./ical/handlers.js";
import { timesheetHandlers } from "./timesheets/handlers.js";
import { myReminderHandlers } from "./my-reminders/handlers.js";
import { timeEntryInvitationHandlers } from "./time-entry-invitations/handlers.js";
import { importHandlers } from "./imports/handlers.js";
import { exportHandlers } from "./exports/handlers.js";

/** Every resource of the tracking service, each from its own folder. */
export function trackingRoutes(kit: TrackingKit) {
  const resources = [clientHandlers(kit), projectHandlers(kit), taskHandlers(kit), meHandlers(kit), tagHandlers(kit), projectUserHandlers(kit), projectGroupHandlers(kit), reminderHandlers(kit), alertHandlers(kit), timeEntryHandlers(kit), reportFilterHandlers(kit), reportHandlers(kit), savedReportHandlers(kit), scheduledReportHandlers(kit), insightHandlers(kit), dashboardHandlers(kit), rateHandlers(kit), favoriteHandlers(kit), goalHandlers(kit), timeEntryNoteHandlers(kit), icalHandlers(kit), timesheetHandlers(kit), myReminderHandlers(kit), timeEntryInvitationHandlers(kit), importHandlers(kit), exportHandlers(kit)];
  return (router: ConnectRouter) => {
    for (const register of resources) register(router);
  };
}
