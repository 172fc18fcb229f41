import { isRateChangeMode } from "../../../lib/rate-change-modes.js";
import { rateLevelInvalid, rateModeInvalid, rateModeOrStartMissing, rateStartInvalid, rateTypeInvalid } from "../errors.js";
import type { RateLevel, RateType } from "./store.js";

/**
 * The levels whose rates the accounts service keeps, beside the values they set (a workspace's
 * `default_hourly_rate`, a workspace user's `rate` and `labour_cost`): this service checks their
 * requests and callers, then hands them over (`WorkspaceRateService`).
 */
export type AccountsRateLevel = "workspace" | "workspace_user";

/** The level of a request: this service's (project, project user, task) or the accounts service's. */
export function rateLevelOf(raw: string): RateLevel | AccountsRateLevel {
  const level = raw.trim();
  if (level === "project" || level === "project_user" || level === "task" || level === "workspace" || level === "workspace_user") return level;
  throw rateLevelInvalid();
}

export const isAccountsRateLevel = (level: RateLevel | AccountsRateLevel): level is AccountsRateLevel => level === "workspace" || level === "workspace_user";

/** The type of rate: billable rates by default; `labor_rates` (POST's word) and `labor_costs` (GET's) are one type. */
export function rateTypeOf(raw: string): RateType {
  const type = raw.trim();
  if (type === "" || type === "billable_rates") return "billable_rates";
  if (type === "labor_rates" || type === "labor_costs") return "labor_costs";
  throw rateTypeInvalid();
}

/** The rate change mode and explicit start of a POST: at least one of them. */
export function rateTiming(modeRaw: string, startRaw: string): { mode: string | null; start: Date | undefined } {
  const mode = modeRaw.trim();
  const startText = startRaw.trim();
  if (!mode && !startText) throw rateModeOrStartMissing();
  if (mode && !isRateChangeMode(mode)) throw rateModeInvalid();
  let start: Date | undefined;
  if (startText) {
    start = new Date(startText);
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(startText) || Number.isNaN(start.getTime())) throw rateStartInvalid();
  }
  return { mode: mode || null, start };
}
