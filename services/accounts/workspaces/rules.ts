import type { CreateWorkspaceRequest, UpdateWorkspaceRequest } from "../../../gen/accounts/v1/workspaces_pb.js";
import { defaultCurrencyInvalid, premiumNeeded, rateChangeModeInvalid, roundingInvalid, tagRestrictionNeedsPremium, workspaceNameEmpty } from "../errors.js";
import { isRateChangeMode, RATE_CHANGE_MODES } from "../../../lib/rate-change-modes.js";
import type { WorkspaceRow } from "./store.js";

/** The settings a workspace body may change (the columns they are stored in). */
export type WorkspaceSettings = Partial<
  Pick<
    WorkspaceRow,
    | "name"
    | "default_currency"
    | "default_hourly_rate"
    | "only_admins_may_create_projects"
    | "only_admins_may_create_tags"
    | "only_admins_see_billable_rates"
    | "only_admins_see_team_dashboard"
    | "projects_billable_by_default"
    | "projects_private_by_default"
    | "reports_collapse"
    | "rounding"
    | "rounding_minutes"
  >
>;

/** The settings a premium workspace may set, and what a free one has (the column defaults). */
const PREMIUM_SETTINGS = ["default_currency", "default_hourly_rate", "rounding", "rounding_minutes", "only_admins_see_billable_rates", "projects_billable_by_default"] as const;
export const FREE_DEFAULTS: Required<Pick<WorkspaceSettings, (typeof PREMIUM_SETTINGS)[number] | "only_admins_may_create_tags">> = {
  default_currency: "USD",
  default_hourly_rate: 0,
  rounding: 0,
  rounding_minutes: 0,
  only_admins_see_billable_rates: false,
  projects_billable_by_default: false,
  only_admins_may_create_tags: false,
};
/** A workspace name (a new organization's first workspace too): trimmed, not empty (its length is the declared limit of the fields that carry it). */
export function workspaceName(raw: string): string {
  const name = raw.trim();
  if (!name) throw workspaceNameEmpty();
  return name;
}

/** The settings of a POST or PUT workspace body, checked against the request alone. */
export function workspaceSettings(req: CreateWorkspaceRequest | UpdateWorkspaceRequest): WorkspaceSettings {
  const out: WorkspaceSettings = {};
  if (req.name !== undefined) out.name = workspaceName(req.name);
  if (req.defaultCurrency !== undefined) {
    const currency = req.defaultCurrency.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw defaultCurrencyInvalid();
    out.default_currency = currency;
  }
  if (req.defaultHourlyRate !== undefined) out.default_hourly_rate = req.defaultHourlyRate;
  if (req.rounding !== undefined) {
    if (![-1, 0, 1].includes(req.rounding)) throw roundingInvalid();
    out.rounding = req.rounding;
  }
  if (req.roundingMinutes !== undefined) out.rounding_minutes = req.roundingMinutes;
  if (req.rateChangeMode !== undefined && !isRateChangeMode(req.rateChangeMode)) throw rateChangeModeInvalid(RATE_CHANGE_MODES);
  const flags = {
    only_admins_may_create_projects: req.onlyAdminsMayCreateProjects,
    only_admins_may_create_tags: req.onlyAdminsMayCreateTags,
    only_admins_see_billable_rates: req.onlyAdminsSeeBillableRates,
    only_admins_see_team_dashboard: req.onlyAdminsSeeTeamDashboard,
    projects_billable_by_default: req.projectsBillableByDefault,
    projects_private_by_default: req.projectsPrivateByDefault,
    reports_collapse: req.reportsCollapse,
  };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * A workspace that is not premium keeps the free values of the premium settings: setting one
 * to another value is the 402 naming it (setting the free value is no change and allowed).
 */
export function checkPremiumSettings(settings: WorkspaceSettings, premium: boolean): void {
  if (premium) return;
  for (const field of PREMIUM_SETTINGS) {
    if (settings[field] !== undefined && settings[field] !== FREE_DEFAULTS[field]) throw premiumNeeded(field);
  }
  if (settings.only_admins_may_create_tags) throw tagRestrictionNeedsPremium();
}

/** Only what differs from the row. */
export function settingChanges(settings: WorkspaceSettings, row: WorkspaceRow): WorkspaceSettings {
  return Object.fromEntries(Object.entries(settings).filter(([k, v]) => row[k as keyof WorkspaceRow] !== v)) as WorkspaceSettings;
}
