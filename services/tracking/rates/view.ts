import { create } from "@bufbuild/protobuf";
import { RateSchema, type Rate } from "../../../gen/tracking/v1/rates_pb.js";
import type { RateRow } from "./store.js";

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");
const big = (n: number | null) => (n === null ? undefined : BigInt(n));

/** A rate as the reference's models.Rate shows it. */
export function rateMessage(row: RateRow): Rate {
  return create(RateSchema, {
    id: BigInt(row.id),
    workspaceId: BigInt(row.workspace_id),
    workspaceUserId: undefined,
    projectId: big(row.project_id),
    projectUserId: big(row.project_user_id),
    plannedTaskId: big(row.task_id),
    type: row.type,
    amount: row.amount,
    start: rfc3339(row.start),
    end: row.end ? rfc3339(row.end) : undefined,
    rateChangeMode: row.rate_change_mode ?? undefined,
    creatorId: BigInt(row.creator_id),
    createdAt: rfc3339(row.created_at),
    updatedAt: rfc3339(row.updated_at),
    deletedAt: row.deleted_at ? rfc3339(row.deleted_at) : undefined,
  });
}
