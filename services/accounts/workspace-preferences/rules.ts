import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidJson, preferencesMissing, timeEntryLockNeedsPremium, workspacePreferenceInvalid, workspacePreferenceNotWritable } from "../errors.js";

/**
 * The specification's WorkspacePreferences fields this installation keeps the real service's
 * values of: single sign-on, the terms-of-service acceptance and the sign-up campaign fields
 * belong to the real service's own sign-up and billing. They are answered, and sending one is
 * "The field is not writable".
 */
const READ_ONLY = ["annual-master-campaign-2018", "inc_tos_accepted_at", "inc_tos_accepted_by", "initial_pricing_plan", "january-2018-campaign", "master_signup", "single_sign_on", "sso_requested_at"];

export interface WorkspacePreferenceChanges {
  hideStartEndTimes?: boolean;
  /** null clears the lock. */
  reportLockedAt?: Date | null;
}

/** A lock date: YYYY-MM-DD (midnight UTC) or an RFC 3339 time. */
function lockDate(value: JsonValue): Date | null {
  if (value === null) return null;
  if (typeof value !== "string") throw workspacePreferenceInvalid("report_locked_at");
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(date.getTime())) throw workspacePreferenceInvalid("report_locked_at");
  return date;
}

/** The changes a POST asks; unknown names are ignored (as the user preferences ignore them), none known is "Missing data". */
export function workspacePreferenceChanges(body: JsonValue | undefined, premium: boolean): WorkspacePreferenceChanges {
  if (body === null || body === undefined || typeof body !== "object" || Array.isArray(body)) throw invalidJson();
  const fields = body as JsonObject;
  if (READ_ONLY.some((name) => name in fields)) throw workspacePreferenceNotWritable();
  const changes: WorkspacePreferenceChanges = {};
  if ("hide_start_end_times" in fields) {
    if (typeof fields.hide_start_end_times !== "boolean") throw workspacePreferenceInvalid("hide_start_end_times");
    changes.hideStartEndTimes = fields.hide_start_end_times;
  }
  if ("report_locked_at" in fields) {
    changes.reportLockedAt = lockDate(fields.report_locked_at);
    // Locking is the paid feature; unlocking needs no plan.
    if (changes.reportLockedAt !== null && !premium) throw timeEntryLockNeedsPremium();
  }
  if (Object.keys(changes).length === 0) throw preferencesMissing();
  return changes;
}

/** The preferences as answered: the specification's fields, and `logo` (its Logo answer). */
export function workspacePreferencesView(w: { hideStartEndTimes: boolean; logo: string; reportLockedAt: Date | null; pricingPlan: number }): JsonObject {
  return {
    "annual-master-campaign-2018": "",
    hide_start_end_times: w.hideStartEndTimes,
    inc_tos_accepted_at: null,
    inc_tos_accepted_by: null,
    initial_pricing_plan: w.pricingPlan,
    "january-2018-campaign": false,
    logo: w.logo,
    master_signup: false,
    report_locked_at: w.reportLockedAt ? w.reportLockedAt.toISOString().replace(/\.\d{3}Z$/, "Z") : null,
    single_sign_on: false,
    sso_requested_at: null,
  };
}
