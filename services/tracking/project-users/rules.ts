import type { JsonValue } from "@bufbuild/protobuf";
import { patchValue, type PatchablePath } from "../../../lib/bulk-patch.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { invalidUser, invalidValue, premiumNeeded, tooManyIds } from "../errors.js";
import { rateChangeMode } from "../projects/rules.js";
import type { ProjectUserRow } from "./store.js";

/** Most project ids one list names. */
export const MAX_LIST_PROJECTS = 200;
/** Most project users one PATCH changes. */
export const MAX_PATCH_PROJECT_USERS = 100;

/**
 * A comma-separated list of ids of a query (`project_ids`): each a positive integer; at most
 * `max` ("<name> cannot exceed <max> elements"), anything else "Invalid <name>".
 */
export function queryIds(raw: string, name: string, max: number): bigint[] {
  const parts = raw.split(",").map((p) => p.trim()).filter((p) => p !== "");
  if (parts.length > max) throw tooManyIds(name, max);
  return [...new Set(parts.map((p) => {
    const id = Number(p);
    if (!/^\d{1,16}$/.test(p) || id < 1 || !Number.isSafeInteger(id)) throw invalidValue(name);
    return BigInt(p);
  }))];
}

/** The list's `user_id`: empty (every user) or one positive id. */
export function queryUserId(raw: string): bigint | undefined {
  const text = raw.trim();
  if (text === "") return undefined;
  const id = Number(text);
  if (!/^\d{1,16}$/.test(text) || id < 1 || !Number.isSafeInteger(id)) throw invalidUser();
  return BigInt(text);
}

/** What a POST, PUT or PATCH asks to change on a project user. */
export interface ProjectUserChanges {
  manager?: boolean;
  /** null clears (only PATCH can say so). */
  rate?: number | null;
  labour_cost?: number | null;
}

/** Rates and labour costs of project users are premium: setting one on a free workspace is 402. */
export function checkPremiumRates(scope: WorkspaceScope, changes: ProjectUserChanges, rateMode: string): void {
  if (scope.premium) return;
  for (const field of ["rate", "labour_cost"] as const) {
    if (changes[field] !== undefined && changes[field] !== null) throw premiumNeeded(field);
  }
  if (rateMode !== "") throw premiumNeeded("rate_change_mode");
}

/**
 * The row's new values: a rate or labour cost that changes stamps its `*_last_updated` with now.
 * `rate_change_mode` (checked here) says from when a new rate applies to existing time entries;
 * this service keeps one rate per project user, so every mode sets it from now on.
 */
export function applyChanges(existing: Pick<ProjectUserRow, "rate" | "labour_cost"> | undefined, changes: ProjectUserChanges, rateMode: string, now: Date): Partial<ProjectUserRow> {
  if (rateMode !== "") rateChangeMode(rateMode);
  const row: Partial<ProjectUserRow> = { at: now };
  if (changes.manager !== undefined) row.manager = changes.manager;
  if (changes.rate !== undefined && changes.rate !== (existing?.rate ?? null)) Object.assign(row, { rate: changes.rate, rate_last_updated: now });
  if (changes.labour_cost !== undefined && changes.labour_cost !== (existing?.labour_cost ?? null)) {
    Object.assign(row, { labour_cost: changes.labour_cost, labour_cost_last_updated: now });
  }
  return row;
}

/** The patchable paths of a project user; `add` is not supported on any. */
export const PATCHABLE_PATHS: Readonly<Record<string, PatchablePath>> = {
  manager: { ops: ["replace"], check: patchValue.boolean("/manager") },
  labour_cost: { ops: ["replace", "remove"], check: patchValue.nullableInteger("/labour_cost") },
  rate: { ops: ["replace", "remove"], check: patchValue.nullableNumber("/rate") },
};

/** The changes of checked patch operations (remove clears a rate or labour cost). */
export function patchChanges(operations: { field: string; value: JsonValue | undefined }[]): ProjectUserChanges {
  const changes: ProjectUserChanges = {};
  for (const { field, value } of operations) {
    if (field === "manager") changes.manager = value as boolean;
    else if (field === "rate" || field === "labour_cost") changes[field] = (value ?? null) as number | null;
  }
  return changes;
}

/** What a member who is not a workspace admin may see of rates: the workspace may keep them to admins; labour costs always are. */
export function visibleRates(scope: WorkspaceScope): { rate: boolean; labourCost: boolean } {
  return { rate: scope.admin || !scope.rules.onlyAdminsSeeBillableRates, labourCost: scope.admin };
}
