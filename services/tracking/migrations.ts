import type { Migration } from "../../lib/db.js";
import { clientMigrations } from "./clients/migrations.js";
import { projectMigrations } from "./projects/migrations.js";
import { taskMigrations } from "./tasks/migrations.js";
import { tagMigrations } from "./tags/migrations.js";
import { projectUserMigrations } from "./project-users/migrations.js";
import { projectGroupMigrations } from "./project-groups/migrations.js";
import { timeEntryMigrations } from "./time-entries/migrations.js";
import { reminderMigrations } from "./reminders/migrations.js";
import { alertMigrations } from "./alerts/migrations.js";
import { savedReportMigrations } from "./saved-reports/migrations.js";
import { scheduledReportMigrations } from "./scheduled-reports/migrations.js";
import { favoriteMigrations } from "./favorites/migrations.js";
import { goalMigrations } from "./goals/migrations.js";
import { timeEntryNoteMigrations } from "./time-entry-notes/migrations.js";
import { icalMigrations } from "./ical/migrations.js";
import { timesheetMigrations } from "./timesheets/migrations.js";
import { timeEntryInvitationMigrations } from "./time-entry-invitations/migrations.js";
import { rateMigrations } from "./rates/migrations.js";
import { exportMigrations } from "./exports/migrations.js";
import { importMigrations } from "./imports/migrations.js";
import { mailOutboxMigration } from "../../lib/mailer.js";

/**
 * The tracking service's migrations, each resource's from its own folder, applied in the order
 * of their names (numbers are reserved per resource: clients 00xx, projects 001x, tags and
 * project users 002x, time entries 003x, alerts and reminders 004x, saved and scheduled reports 005x,
 * rates 009x, imports 011x).
 */
export const migrations: Migration[] = [
  ...clientMigrations,
  ...projectMigrations,
  ...taskMigrations,
  ...tagMigrations,
  ...projectUserMigrations,
  ...projectGroupMigrations,
  ...timeEntryMigrations,
  ...alertMigrations,
  ...reminderMigrations,
  ...savedReportMigrations,
  ...scheduledReportMigrations,
  ...favoriteMigrations,
  ...goalMigrations,
  ...timeEntryNoteMigrations,
  ...icalMigrations,
  ...timesheetMigrations,
  ...timeEntryInvitationMigrations,
  ...rateMigrations,
  ...exportMigrations,
  ...importMigrations,
  // Reminders and scheduled reports send mail (lib/mailer.ts).
  mailOutboxMigration,
];
