import { alertFieldBlank, alertFieldOutOfRange, alertProjectUnsupported, notInWorkspace } from "../errors.js";
import type { CreateAlertRequest } from "../../../gen/tracking/v1/alerts_pb.js";

/**
 * What an alert watches (its source kind): a project's tracked time, against its estimate
 * (percentage) or in hours; or the whole workspace's tracked time, in hours. The alert type
 * (`object_type`) is the kind of object watched.
 */
export const SOURCE_KINDS: Readonly<Record<string, { objectType: number; project: boolean; thresholdTypes: readonly string[] }>> = {
  project: { objectType: 1, project: true, thresholdTypes: ["percentage", "hours"] },
  workspace: { objectType: 2, project: false, thresholdTypes: ["hours"] },
};

/** The values a threshold of each type takes. */
export const THRESHOLD_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  percentage: [1, 1000],
  hours: [1, 100_000],
};

/** Who receives an alert by role. */
export const RECEIVER_ROLES = ["admin", "project_manager", "member"] as const;

/** The receiver type (`receivers`): which receiver lists an alert has, as bits. */
export const RECEIVER_TYPE = { roles: 1, users: 2 } as const;

/** The settings of a POST or PUT body (the same fields in both). */
export type AlertBody = Pick<CreateAlertRequest, "sourceKind" | "projectId" | "thresholdType" | "thresholds" | "receiverRoles" | "receiverUsers" | "objectType" | "receivers">;

/** A checked alert, ready to store. */
export interface AlertSettings {
  objectType: number;
  sourceKind: string;
  projectId: bigint | undefined;
  thresholdType: string;
  thresholds: number[];
  receivers: number;
  receiverRoles: string[];
  receiverUsers: bigint[];
}

/** The request's alert, or the first of the reference's errors it has (in the reference's order). */
export function alertSettings(req: AlertBody): AlertSettings {
  const sourceKind = req.sourceKind?.trim() ?? "";
  if (!sourceKind) throw alertFieldBlank("source kind");
  const kind = Object.hasOwn(SOURCE_KINDS, sourceKind) ? SOURCE_KINDS[sourceKind] : undefined;
  if (!kind) throw alertFieldOutOfRange("source kind");
  const projectId = req.projectId === undefined || req.projectId === 0n ? undefined : req.projectId;
  if (kind.project && projectId === undefined) throw alertFieldBlank("project");
  if (!kind.project && projectId !== undefined) throw alertProjectUnsupported();

  const thresholdType = req.thresholdType?.trim() ?? "";
  if (!thresholdType) throw alertFieldBlank("threshold type");
  if (!kind.thresholdTypes.includes(thresholdType)) throw alertFieldOutOfRange("threshold type");
  if (req.thresholds.length === 0) throw alertFieldBlank("thresholds");
  const [min, max] = THRESHOLD_RANGES[thresholdType];
  if (req.thresholds.some((t) => t < BigInt(min) || t > BigInt(max))) throw alertFieldOutOfRange("threshold");
  const thresholds = [...new Set(req.thresholds.map(Number))].sort((a, b) => a - b);

  if (req.receiverRoles.length === 0 && req.receiverUsers.length === 0) throw alertFieldBlank("receivers");
  if (req.receiverRoles.some((r) => !(RECEIVER_ROLES as readonly string[]).includes(r))) throw alertFieldOutOfRange("receiver role");
  const receiverRoles = [...new Set(req.receiverRoles)];
  const receiverUsers = [...new Set(req.receiverUsers)];
  const receivers = (receiverRoles.length ? RECEIVER_TYPE.roles : 0) | (receiverUsers.length ? RECEIVER_TYPE.users : 0);

  if (req.objectType !== undefined && req.objectType !== kind.objectType) throw alertFieldOutOfRange("alert type");
  if (req.receivers !== undefined && req.receivers !== receivers) throw alertFieldOutOfRange("receiver type");
  return { objectType: kind.objectType, sourceKind, projectId, thresholdType, thresholds, receivers, receiverRoles, receiverUsers };
}

/** The receiver users who are no members of the workspace. */
export function checkReceiverUsers(userIds: bigint[], memberIds: ReadonlySet<bigint>): void {
  const strangers = userIds.filter((id) => !memberIds.has(id));
  if (strangers.length) throw notInWorkspace("receiver_users", strangers);
}

/** A list as PostgreSQL array text (`{80,100}`), as the real service answers the alert's lists. */
export function arrayText(items: readonly (string | number | bigint)[]): string {
  return `{${items.join(",")}}`;
}
