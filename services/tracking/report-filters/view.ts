import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import type {
  ReportFilterClientSchema,
  ReportFilterProjectGroupSchema,
  ReportFilterProjectSchema,
  ReportFilterProjectUserSchema,
  ReportFilterTaskSchema,
  ReportFilterUserSchema,
  ReportSearchUserSchema,
  ReportTrackedStatusSchema,
} from "../../../gen/tracking/v1/report_filters_pb.js";
import type { ClientRow } from "../clients/store.js";
import type { ProjectGroupRow } from "../project-groups/store.js";
import type { ProjectUserRow } from "../project-users/store.js";
import type { ProjectRow } from "../projects/store.js";
import type { TaskRow } from "../tasks/store.js";
import { amountInCents, centsOf } from "../reporting.js";
import type { RatedSeconds } from "./store.js";

/** Rows and answers of the report helpers, field for field as the reference names them. */

export const filterClient = (row: ClientRow): MessageInitShape<typeof ReportFilterClientSchema> => ({ id: row.id, name: row.name });

export const filterProject = (row: ProjectRow): MessageInitShape<typeof ReportFilterProjectSchema> => ({
  id: row.id,
  name: row.name,
  color: row.color,
  active: row.active,
  billable: row.billable ?? undefined,
  clientId: row.client_id ?? undefined,
  currency: row.currency ?? undefined,
});

export const filterProjectGroup = (row: ProjectGroupRow, groupNames: ReadonlyMap<bigint, string>): MessageInitShape<typeof ReportFilterProjectGroupSchema> => ({
  id: row.id,
  projectId: row.project_id,
  groupId: row.group_id,
  name: groupNames.get(row.group_id) ?? "",
});

/** A project user with the rate and labour cost the caller may see (`visibleRates`). */
export const filterProjectUser = (row: ProjectUserRow, show: { rate: boolean; labourCost: boolean }): MessageInitShape<typeof ReportFilterProjectUserSchema> => ({
  id: row.id,
  projectId: row.project_id,
  userId: row.user_id,
  hourlyRate: show.rate ? (row.rate ?? undefined) : undefined,
  labourCost: show.labourCost && row.labour_cost !== null ? BigInt(Math.round(row.labour_cost)) : undefined,
});

export const filterUser = (member: WorkspaceMember): MessageInitShape<typeof ReportFilterUserSchema> => ({ id: member.userId, name: member.fullname });

export const searchUser = (member: WorkspaceMember): MessageInitShape<typeof ReportSearchUserSchema> => ({
  id: member.userId,
  email: member.email,
  fullname: member.fullname,
  active: member.active,
  deactivated: !member.active,
});

/** A project's or task's all-time tracked time from its entries' seconds per rate; amounts only where the caller sees rates. */
export function trackedStatus(
  id: bigint,
  rated: readonly RatedSeconds[],
  details: { currency: string; estimatedSeconds: number | null; showAmounts: boolean },
): MessageInitShape<typeof ReportTrackedStatusSchema> {
  const sum = (f: (r: RatedSeconds) => number) => rated.reduce((total, r) => total + f(r), 0);
  return {
    id,
    trackedSeconds: BigInt(sum((r) => r.seconds)),
    billableSeconds: BigInt(sum((r) => r.billableSeconds)),
    billableAmount: details.showAmounts ? BigInt(amountInCents(rated.map((r) => ({ seconds: r.billableSeconds, rateInCents: centsOf(r.rate) })))) : undefined,
    currency: details.currency,
    estimatedSeconds: details.estimatedSeconds === null ? undefined : BigInt(details.estimatedSeconds),
  };
}

/** What a task's answer shows of its project, client and assignee. */
export interface TaskContext {
  project: ProjectRow | undefined;
  clientName: string | undefined;
  assigneeName: string | undefined;
  trackedSeconds: number;
}

export const reportTask = (row: TaskRow, context: TaskContext): MessageInitShape<typeof ReportFilterTaskSchema> => ({
  id: row.id,
  name: row.name,
  workspaceId: row.workspace_id,
  projectId: row.project_id,
  active: row.active,
  at: timestampFromDate(row.at),
  estimatedSeconds: row.estimated_seconds === null ? undefined : BigInt(row.estimated_seconds),
  // The reference: "tracked_seconds is in milliseconds".
  trackedSeconds: BigInt(context.trackedSeconds * 1000),
  rate: row.rate ?? undefined,
  rateLastUpdated: row.rate_last_updated ? timestampFromDate(row.rate_last_updated) : undefined,
  recurring: false,
  userId: row.user_id ?? undefined,
  userName: context.assigneeName,
  clientId: context.project?.client_id ?? undefined,
  clientName: context.clientName,
  projectName: context.project?.name ?? "",
  projectColor: context.project?.color ?? "",
  projectBillable: context.project?.billable ?? undefined,
  projectIsPrivate: context.project?.is_private,
});
