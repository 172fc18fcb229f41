import type { JsonValue } from "@bufbuild/protobuf";
import { flagKeyTooLong, flagsInvalid, flagValueTooLong, tooManyFlags, tooManyFlagsInRequest } from "../errors.js";

/** The specification's limits: 4 flags a request, 128 in all, keys up to 32 and values up to 64 characters. */
export const FLAG_LIMITS = { perRequest: 4, total: 128, keyLength: 32, valueLength: 64 } as const;

/**
 * The flags a POST sets: an object of at least one key; each value any JSON whose text is at most
 * 64 characters (a string's own characters, other values their JSON text); null removes the flag.
 */
export function flagChanges(body: JsonValue | undefined): Map<string, JsonValue> {
  if (body === null || body === undefined || typeof body !== "object" || Array.isArray(body)) throw flagsInvalid();
  const entries = Object.entries(body);
  if (entries.length === 0) throw flagsInvalid();
  if (entries.length > FLAG_LIMITS.perRequest) throw tooManyFlagsInRequest(FLAG_LIMITS.perRequest);
  for (const [key, value] of entries) {
    if (key.trim() === "") throw flagsInvalid();
    if ([...key].length > FLAG_LIMITS.keyLength) throw flagKeyTooLong(FLAG_LIMITS.keyLength);
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if ([...text].length > FLAG_LIMITS.valueLength) throw flagValueTooLong(FLAG_LIMITS.valueLength);
  }
  return new Map(entries);
}

/** The flags after the changes, refused when they would be more than the total allowed. */
export function mergedFlags(current: Map<string, JsonValue>, changes: Map<string, JsonValue>): Map<string, JsonValue> {
  const merged = new Map(current);
  for (const [key, value] of changes) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  if (merged.size > FLAG_LIMITS.total) throw tooManyFlags(FLAG_LIMITS.total);
  return merged;
}

/**
 * The workspace features /me/features answers: what a workspace may use here, by plan. The
 * specification names no catalog; these are the plan-gated features of this installation (what
 * answers 402 on a free workspace), with stable ids.
 */
export const WORKSPACE_FEATURES: readonly { id: number; name: string; premium: boolean }[] = [
  { id: 1, name: "time_tracking", premium: false },
  { id: 2, name: "projects", premium: false },
  { id: 3, name: "clients", premium: false },
  { id: 4, name: "tags", premium: false },
  { id: 5, name: "reports", premium: false },
  { id: 6, name: "webhooks", premium: false },
  { id: 10, name: "billable_rates", premium: true },
  { id: 11, name: "project_estimates", premium: true },
  { id: 12, name: "archive_clients", premium: true },
  { id: 13, name: "rounding", premium: true },
  { id: 14, name: "labour_cost", premium: true },
  { id: 15, name: "restrict_tag_management", premium: true },
  { id: 16, name: "multiple_workspaces", premium: true },
];

/** The features of a workspace: each enabled when the workspace's plan allows it. */
export const featuresOf = (premium: boolean) => WORKSPACE_FEATURES.map((f) => ({ featureId: BigInt(f.id), name: f.name, enabled: premium || !f.premium }));
