import type { Rate } from "../../../gen/tracking/v1/rates_pb.js";
import { rateMessage as historyRateMessage } from "../../../lib/rate-history.js";
import type { RateRow } from "./store.js";

/** A rate of a project, project user or task as the reference's models.Rate shows it. */
export const rateMessage = (row: RateRow): Rate =>
  historyRateMessage(row, { projectId: row.project_id ?? undefined, projectUserId: row.project_user_id ?? undefined, plannedTaskId: row.task_id ?? undefined });
