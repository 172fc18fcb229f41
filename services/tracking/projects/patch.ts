import type { JsonValue } from "@bufbuild/protobuf";
import { patchValue, type PatchablePath, type PatchOperation } from "../../../lib/bulk-patch.js";
import { expectsStringOrNull } from "../errors.js";
import type { ClearableField, ProjectEdit } from "./changes.js";

const nullableString = (path: string) => (v: JsonValue | undefined) => (v === undefined || v === null || typeof v === "string" ? undefined : expectsStringOrNull(path));
const ADD_REPLACE = ["add", "replace"] as const;

/**
 * The project fields PATCH changes and the values each takes. `add` and `replace` set the field
 * (RFC 6902's `add` on an object member replaces it); `remove` clears the fields that may be empty.
 */
export const PROJECT_PATCH_PATHS: Readonly<Record<string, PatchablePath>> = {
  name: { ops: ADD_REPLACE, check: patchValue.string("/name") },
  color: { ops: ADD_REPLACE, check: patchValue.string("/color") },
  active: { ops: ADD_REPLACE, check: patchValue.boolean("/active") },
  is_private: { ops: ADD_REPLACE, check: patchValue.boolean("/is_private") },
  billable: { ops: ADD_REPLACE, check: patchValue.boolean("/billable") },
  auto_estimates: { ops: ADD_REPLACE, check: patchValue.boolean("/auto_estimates") },
  template: { ops: ADD_REPLACE, check: patchValue.boolean("/template") },
  start_date: { ops: ADD_REPLACE, check: patchValue.string("/start_date") },
  end_date: { check: nullableString("/end_date") },
  client_id: { check: patchValue.nullableInteger("/client_id") },
  estimated_hours: { check: patchValue.nullableInteger("/estimated_hours") },
  rate: { check: patchValue.nullableNumber("/rate") },
  fixed_fee: { check: patchValue.nullableNumber("/fixed_fee") },
  currency: { check: nullableString("/currency") },
};

/** Where each path's value goes in an edit. */
const INPUT_OF: Readonly<Record<string, (input: ProjectEdit["input"], value: JsonValue) => void>> = {
  name: (input, v) => (input.name = v as string),
  color: (input, v) => (input.color = v as string),
  active: (input, v) => (input.active = v as boolean),
  is_private: (input, v) => (input.isPrivate = v as boolean),
  billable: (input, v) => (input.billable = v as boolean),
  auto_estimates: (input, v) => (input.autoEstimates = v as boolean),
  template: (input, v) => (input.template = v as boolean),
  start_date: (input, v) => (input.startDate = v as string),
  end_date: (input, v) => (input.endDate = v as string),
  client_id: (input, v) => (input.clientId = BigInt(v as number)),
  estimated_hours: (input, v) => (input.estimatedHours = BigInt(v as number)),
  rate: (input, v) => (input.rate = v as number),
  fixed_fee: (input, v) => (input.fixedFee = v as number),
  currency: (input, v) => (input.currency = v as string),
};

/** The operations (checked against PROJECT_PATCH_PATHS) as one edit, applied to each project; a later operation on a path wins. */
export function editOfPatch(operations: PatchOperation[]): ProjectEdit {
  const edits = new Map<string, JsonValue | undefined>();
  for (const { field, value } of operations) edits.set(field, value);
  const input: ProjectEdit["input"] = {};
  const cleared = new Set<ClearableField>();
  for (const [field, value] of edits) {
    if (value === undefined || value === null) cleared.add(field as ClearableField);
    else INPUT_OF[field](input, value);
  }
  return { input, cleared };
}
