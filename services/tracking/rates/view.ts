import type { Rate } from "../../../gen/tracking/v1/rates_pb.js";
import { rateMessage as historyRateMessage } from "../../../lib/rate-history.js";
import type { RateRow } from "./store.js";

const big = (n: number | null) => (n === null ? undefined : BigInt(n));

/** A rate of a project, project user or task as the reference's models.Rate shows it. */
export const rateMessage = (row: RateRow): Rate =>
  historyRateMessage(row, { projectId: big(row.project_id), projectUserId: big(row.project_user_id), plannedTaskId: big(row.task_id) });
