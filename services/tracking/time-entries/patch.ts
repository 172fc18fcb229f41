import type { JsonValue } from "@bufbuild/protobuf";
import { patchValue, type PatchablePath, type PatchOperation, type PatchOp } from "../../../lib/bulk-patch.js";
import { expectsId, expectsIdOrNull, expectsIds, expectsStrings, expectsTime } from "../errors.js";
import type { EntryChange } from "./changes.js";
import { entryInstant, parseInstant } from "./rules.js";

const isId = (v: JsonValue | undefined) => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
// A remove carries no value (lib/bulk-patch.ts): it clears the list.
const ids = (path: string) => (v: JsonValue | undefined, op: PatchOp) => (op === "remove" || (Array.isArray(v) && v.every(isId)) ? undefined : expectsIds(path));
const names = (path: string) => (v: JsonValue | undefined, op: PatchOp) =>
  op === "remove" || (Array.isArray(v) && v.every((n) => typeof n === "string")) ? undefined : expectsStrings(path);
const nullableId = (path: string) => (v: JsonValue | undefined) => (v === undefined || v === null || isId(v) ? undefined : expectsIdOrNull(path));
const time = (path: string) => (v: JsonValue | undefined) => (typeof v === "string" && parseInstant(v) ? undefined : expectsTime(path));
const set: readonly PatchOp[] = ["add", "replace"];

/** What a bulk patch may change on each entry, with the value each path takes. */
export const ENTRY_PATCH_PATHS: Readonly<Record<string, PatchablePath>> = {
  description: { check: (v, op) => (v === null ? undefined : patchValue.string("/description")(v, op)) },
  billable: { ops: set, check: patchValue.boolean("/billable") },
  project_id: { check: nullableId("/project_id") },
  task_id: { check: nullableId("/task_id") },
  tag_ids: { check: ids("/tag_ids") },
  tags: { check: names("/tags") },
  shared_with_user_ids: { check: ids("/shared_with_user_ids") },
  start: { ops: set, check: time("/start") },
  stop: { ops: set, check: time("/stop") },
  duration: { ops: set, check: patchValue.nullableInteger("/duration") },
  user_id: { ops: set, check: (v) => (isId(v) ? undefined : expectsId("/user_id")) },
};

/**
 * The change checked operations make to every entry, in order: add puts tags to an entry's,
 * remove clears a field (all tags, all sharing, no project), replace sets the field.
 */
export function patchChange(operations: PatchOperation[]): EntryChange {
  const change: EntryChange = {};
  for (const { op, field, value } of operations) {
    const cleared = op === "remove" || value === null;
    switch (field) {
      case "description":
        change.description = cleared ? null : (value as string);
        break;
      case "billable":
        change.billable = value as boolean;
        break;
      case "project_id":
        change.projectId = cleared ? null : BigInt(value as number);
        break;
      case "task_id":
        change.taskId = cleared ? null : BigInt(value as number);
        break;
      case "tag_ids":
      case "tags": {
        const given = (value ?? []) as never[];
        const action = op === "add" ? "add" : "set";
        (change.tags ??= []).push(field === "tags" ? { action, names: given } : { action, ids: (given as number[]).map(BigInt) });
        break;
      }
      case "shared_with_user_ids":
        change.sharedWith = op === "remove" ? [] : (value as number[]).map(BigInt);
        break;
      case "start":
        change.start = entryInstant(value as string, "start");
        break;
      case "stop":
        change.stop = entryInstant(value as string, "stop");
        break;
      case "duration":
        change.duration = value === null ? -1 : (value as number);
        break;
      case "user_id":
        change.userId = BigInt(value as number);
        break;
    }
  }
  return change;
}
