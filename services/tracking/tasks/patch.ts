import type { JsonValue } from "@bufbuild/protobuf";
import { patchValue, type PatchablePath, type PatchOperation } from "../../../lib/bulk-patch.js";
import type { TaskInput } from "../../../gen/tracking/v1/tasks_pb.js";

const ADD_REPLACE = ["add", "replace"] as const;

/** A non-negative integer below 2^53, or null (remove). */
const nullableCount = (path: string) => (v: JsonValue | undefined) =>
  v === undefined || v === null || (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) ? undefined : `${path} expects a non-negative integer or null`;

/**
 * The task fields PATCH changes and the values each takes: `add`/`replace` set a field, `remove`
 * (or `null`) clears the estimate or the assignee.
 */
export const TASK_PATCH_PATHS: Readonly<Record<string, PatchablePath>> = {
  name: { ops: ADD_REPLACE, check: patchValue.string("/name") },
  active: { ops: ADD_REPLACE, check: patchValue.boolean("/active") },
  estimated_seconds: { check: nullableCount("/estimated_seconds") },
  user_id: { check: nullableCount("/user_id") },
};

/**
 * The operations (checked against TASK_PATCH_PATHS) as one edit in the body's shape, applied to
 * each task; a later operation on a path wins. A cleared estimate or assignee is 0, as in a PUT body.
 */
export function editOfTaskPatch(operations: PatchOperation[]): Partial<TaskInput> {
  const input: Partial<TaskInput> = {};
  for (const { field, value } of operations) {
    if (field === "name") input.name = value as string;
    else if (field === "active") input.active = value as boolean;
    else if (field === "estimated_seconds") input.estimatedSeconds = BigInt((value as number | null | undefined) ?? 0);
    else if (field === "user_id") input.userId = BigInt((value as number | null | undefined) ?? 0);
  }
  return input;
}
