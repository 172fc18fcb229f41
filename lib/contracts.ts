import type { DescFile } from "@bufbuild/protobuf";
import { file_hiring_v1_export } from "../gen/hiring/v1/export_pb.js";
import { file_hiring_v1_admin } from "../gen/hiring/v1/admin_pb.js";
import { file_accounts_v1_accounts } from "../gen/accounts/v1/accounts_pb.js";
import { file_accounts_v1_workspaces } from "../gen/accounts/v1/workspaces_pb.js";
import { file_accounts_v1_organizations } from "../gen/accounts/v1/organizations_pb.js";
import { file_accounts_v1_invitations } from "../gen/accounts/v1/invitations_pb.js";
import { file_accounts_v1_groups } from "../gen/accounts/v1/groups_pb.js";
import { file_accounts_v1_workspace_users } from "../gen/accounts/v1/workspace_users_pb.js";
import { file_accounts_v1_preferences } from "../gen/accounts/v1/preferences_pb.js";
import { file_accounts_v1_roles } from "../gen/accounts/v1/roles_pb.js";
import { file_accounts_v1_audit_logs } from "../gen/accounts/v1/audit_logs_pb.js";
import { file_accounts_v1_images } from "../gen/accounts/v1/images_pb.js";
import { file_accounts_v1_lookups } from "../gen/accounts/v1/lookups_pb.js";
import { file_accounts_v1_workspace_settings } from "../gen/accounts/v1/workspace_settings_pb.js";
import { file_accounts_v1_rates } from "../gen/accounts/v1/rates_pb.js";
import { file_tracking_v1_clients } from "../gen/tracking/v1/clients_pb.js";
import { file_tracking_v1_projects } from "../gen/tracking/v1/projects_pb.js";
import { file_tracking_v1_tasks } from "../gen/tracking/v1/tasks_pb.js";
import { file_tracking_v1_me } from "../gen/tracking/v1/me_pb.js";
import { file_tracking_v1_tags } from "../gen/tracking/v1/tags_pb.js";
import { file_tracking_v1_project_users } from "../gen/tracking/v1/project_users_pb.js";
import { file_tracking_v1_project_groups } from "../gen/tracking/v1/project_groups_pb.js";
import { file_tracking_v1_reminders } from "../gen/tracking/v1/reminders_pb.js";
import { file_tracking_v1_alerts } from "../gen/tracking/v1/alerts_pb.js";
import { file_tracking_v1_time_entries } from "../gen/tracking/v1/time_entries_pb.js";
import { file_tracking_v1_report_filters } from "../gen/tracking/v1/report_filters_pb.js";
import { file_tracking_v1_reports } from "../gen/tracking/v1/reports_pb.js";
import { file_tracking_v1_insights } from "../gen/tracking/v1/insights_pb.js";
import { file_tracking_v1_saved_reports } from "../gen/tracking/v1/saved_reports_pb.js";
import { file_tracking_v1_favorites } from "../gen/tracking/v1/favorites_pb.js";
import { file_tracking_v1_goals } from "../gen/tracking/v1/goals_pb.js";
import { file_tracking_v1_dashboard } from "../gen/tracking/v1/dashboard_pb.js";
import { file_tracking_v1_time_entry_notes } from "../gen/tracking/v1/time_entry_notes_pb.js";
import { file_tracking_v1_ical } from "../gen/tracking/v1/ical_pb.js";
import { file_tracking_v1_rates } from "../gen/tracking/v1/rates_pb.js";
import { file_tracking_v1_timesheets } from "../gen/tracking/v1/timesheets_pb.js";
import { file_tracking_v1_my_track_reminders } from "../gen/tracking/v1/my_track_reminders_pb.js";
import { file_tracking_v1_time_entry_invitations } from "../gen/tracking/v1/time_entry_invitations_pb.js";
import { file_tracking_v1_imports } from "../gen/tracking/v1/imports_pb.js";
import { file_tracking_v1_exports } from "../gen/tracking/v1/exports_pb.js";
import { file_notifier_v1_webhooks } from "../gen/notifier/v1/webhooks_pb.js";
import { file_notifier_v1_tracking_webhooks } from "../gen/notifier/v1/tracking_webhooks_pb.js";

/** Every contract the gateway looks through for REST routes. */
export const PROTO_FILES: DescFile[] = [
  file_hiring_v1_export,
  file_hiring_v1_admin,
  file_accounts_v1_accounts,
  file_accounts_v1_workspaces,
  file_accounts_v1_organizations,
  file_accounts_v1_invitations,
  file_accounts_v1_groups,
  file_accounts_v1_workspace_users,
  file_accounts_v1_preferences,
  file_accounts_v1_roles,
  file_accounts_v1_audit_logs,
  file_accounts_v1_images,
  file_accounts_v1_lookups,
  file_accounts_v1_workspace_settings,
  file_accounts_v1_rates,
  file_tracking_v1_clients,
  file_tracking_v1_projects,
  file_tracking_v1_tasks,
  file_tracking_v1_me,
  file_tracking_v1_tags,
  file_tracking_v1_project_users,
  file_tracking_v1_project_groups,
  file_tracking_v1_reminders,
  file_tracking_v1_alerts,
  file_tracking_v1_time_entries,
  file_tracking_v1_report_filters,
  file_tracking_v1_reports,
  file_tracking_v1_insights,
  file_tracking_v1_saved_reports,
  file_tracking_v1_favorites,
  file_tracking_v1_goals,
  file_tracking_v1_time_entry_notes,
  file_tracking_v1_ical,
  file_tracking_v1_timesheets,
  file_tracking_v1_my_track_reminders,
  file_tracking_v1_time_entry_invitations,
  file_tracking_v1_imports,
  file_tracking_v1_exports,
  file_tracking_v1_dashboard,
  file_tracking_v1_rates,
  file_notifier_v1_webhooks,
  file_notifier_v1_tracking_webhooks,
];
