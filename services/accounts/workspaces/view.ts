import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { WorkspaceSchema, type Workspace } from "../../../gen/accounts/v1/workspaces_pb.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { MemberWorkspace } from "./store.js";

const stamp = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

/**
 * A workspace as its member sees it: the real API's fields, the deprecated ones null. Premium is
 * the organization's plan; a paid plan has every premium feature, so the workspace is on both
 * the starter (`premium`) and the higher subscription (`business_ws`).
 */
export function workspaceMessage({ workspace: w, admin, role, premium }: MemberWorkspace): Workspace {
  return create(WorkspaceSchema, {
    id: w.id,
    organizationId: w.organization_id,
    name: w.name,
    admin,
    role,
    premium,
    businessWs: premium,
    defaultHourlyRate: w.default_hourly_rate,
    defaultCurrency: w.default_currency,
    onlyAdminsMayCreateProjects: w.only_admins_may_create_projects,
    onlyAdminsMayCreateTags: w.only_admins_may_create_tags,
    onlyAdminsSeeBillableRates: w.only_admins_see_billable_rates,
    onlyAdminsSeeTeamDashboard: w.only_admins_see_team_dashboard,
    projectsBillableByDefault: w.projects_billable_by_default,
    projectsPrivateByDefault: w.projects_private_by_default,
    projectsEnforceBillable: w.projects_enforce_billable,
    limitPublicProjectData: w.limit_public_project_data,
    reportsCollapse: w.reports_collapse,
    rounding: w.rounding,
    roundingMinutes: w.rounding_minutes,
    rateLastUpdated: stamp(w.rate_last_updated),
    at: stamp(w.updated_at),
    lastModified: stamp(w.updated_at),
    logoUrl: w.logo_url,
    icalEnabled: false,
    hideStartEndTimes: w.hide_start_end_times,
    workingHoursInMinutes: w.working_hours_in_minutes ?? undefined,
    suspendedAt: stamp(w.suspended_at),
    teConstraints: {
      descriptionPresent: w.te_description_present,
      projectPresent: w.te_project_present,
      tagPresent: w.te_tag_present,
      taskPresent: w.te_task_present,
      timeEntryConstraintsEnabled: w.te_constraints_enabled,
    },
  });
}

/** A workspace event, as the actor saw the workspace. */
export function workspaceEvent(action: EntityAction, seen: MemberWorkspace, actor: bigint) {
  const message = workspaceMessage(seen);
  return entityEvent({ entity: "workspace", action, schema: WorkspaceSchema, message, workspaceId: message.id, userId: actor });
}
