/**
 * The workspace export's ZIP layout: the real service's file names (../shared/reference/
 * toggl-workspace-export.md), which tools written for it read, plus the time entries it does not
 * carry (JSON per year in the v9 time entry shape, and the detailed report's CSV). The exporter
 * writes these names and the importer reads them; neither spells a name of its own.
 */

export const CLIENTS_FILE = "clients.json";
export const PROJECTS_FILE = "projects.json";
export const TAGS_FILE = "tags.json";
export const WORKSPACE_USERS_FILE = "workspace_users.json";
export const USER_GROUPS_FILE = "user_groups.json";
export const ALERTS_FILE = "alerts.json";
export const TRACKING_REMINDERS_FILE = "tracking_reminders.json";
export const SCHEDULED_REPORTS_FILE = "scheduled_reports.json";
export const WORKSPACE_SETTINGS_FILE = "workspace_settings.json";

/** One file per project: the array of its tasks. */
export const tasksFile = (projectId: string) => `tasks/${projectId}.json`;
/** One file per project: the array of its project users. */
export const projectUsersFile = (projectId: string) => `projects_users/${projectId}.json`;
/** One file per audit log entry. */
export const auditLogFile = (id: string) => `audit_log/${id}.json`;

/** Ours, not the real service's: a year of time entries in the v9 shape. */
export const timeEntriesFile = (year: number) => `time_entries/${year}.json`;
/** Ours: every time entry as the detailed report's CSV (the file the real service exports entries as). */
export const DETAILED_CSV_FILE = "time_entries.csv";

/**
 * Ours: what the real layout has no file for, in files of our own that tools written for the
 * real layout leave alone. The groups' members, the projects' groups (the v9 project group shape: `group_id`, `pid`)
 * go with the project users; the deleted time entries (the v9 shape with `server_deleted_at`) go
 * apart from the live ones, so that `timeEntriesFile` holds what the API lists.
 */
export const PROJECT_GROUPS_FILE = "workhub/project_groups.json";
/** Ours: the workspace's groups with their members (the organization's group endpoint's shape: `group_id`, `name`, `users`). */
export const GROUP_MEMBERS_FILE = "workhub/groups.json";
export const deletedTimeEntriesFile = (year: number) => `workhub/deleted_time_entries/${year}.json`;
export const DELETED_TIME_ENTRIES_DIR = "workhub/deleted_time_entries/";

export const TASKS_DIR = "tasks/";
export const PROJECT_USERS_DIR = "projects_users/";
export const AUDIT_LOG_DIR = "audit_log/";
export const TIME_ENTRIES_DIR = "time_entries/";

/** The ZIP's own name, as the real service names it. */
export const exportArchiveName = (workspaceId: string, uuid: string) => `toggl_workspace_${workspaceId}_export_${uuid}.zip`;

/**
 * The detailed CSV's header texts are the reports' (`detailedReportColumns` in
 * ../reports/formats/table.ts): the exporter writes that table, the importer reads its header.
 */

/**
 * A user's own export (/api/v9/me/export): their profile (GET /api/v9/me, without the API token)
 * and preferences (GET /api/v9/me/preferences) as the API answers them, and their time entries in
 * every workspace under `timeEntriesFile(year)`.
 */
export const PROFILE_FILE = "profile.json";
export const PREFERENCES_FILE = "preferences.json";
/** The user export ZIP's own name (ours: the real service's is not known). */
export const userExportArchiveName = (userId: string, uuid: string) => `toggl_user_${userId}_export_${uuid}.zip`;
