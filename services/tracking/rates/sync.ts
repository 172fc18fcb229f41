import type { Knex } from "../../../lib/db.js";
import type { RateKey } from "../../../lib/rate-history.js";
import type { Emit } from "../../../lib/storage.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { projects } from "../projects/store.js";
import { projectEvent } from "../projects/view.js";
import { projectUserEvent } from "../project-users/changes.js";
import { projectUsers } from "../project-users/store.js";
import { tasks } from "../tasks/store.js";
import { taskEvent } from "../tasks/view.js";
import { rateHistory, type RateLevel, type RateRow, type RateType } from "./store.js";

/** The entity a rate belongs to: its ids and the project that decides who may see and change it. */
export interface RateEntity {
  level: RateLevel;
  id: bigint;
  projectId: bigint;
  projectUserId: bigint | null;
  taskId: bigint | null;
}

/** Who changes the entity (its event's actor) and in which workspace. */
export type RateActor = Pick<WorkspaceScope, "workspaceId" | "userId">;

/** The entity of a stored rate. */
export const entityOfRate = (row: RateRow): RateEntity => ({ level: row.level, id: row.level_id, projectId: row.project_id ?? row.level_id, projectUserId: row.project_user_id, taskId: row.task_id });

/** The entity's rates of a type. */
export const rateKey = (workspace: bigint, entity: RateEntity, type: RateType): RateKey => ({ workspace, level: entity.level, levelId: entity.id, type });

/**
 * The entity's current value (`rate`, or a project user's `labour_cost` for labor costs) follows
 * the rate that holds now, with the entity's event; every live rate that has begun is marked
 * applied, so the rates scheduler leaves it alone.
 */
export async function applyCurrentRate(trx: Knex.Transaction, emit: Emit, actor: RateActor, entity: RateEntity, type: RateType, now: Date): Promise<void> {
  const current = await rateHistory.begin(trx, rateKey(actor.workspaceId, entity, type), now);
  if (current) await setEntityRate(trx, emit, actor, entity, type, current.amount, now);
}

async function setEntityRate(trx: Knex.Transaction, emit: Emit, actor: RateActor, entity: RateEntity, type: RateType, amount: number, now: Date): Promise<void> {
  if (entity.level === "project" && type === "billable_rates") {
    const row = await projects.getForChange(trx, actor.workspaceId, entity.id);
    if (!row || row.rate === amount) return;
    const updated = await projects.update(trx, row, { rate: amount, rate_last_updated: now, at: now });
    await emit(await projectEvent(trx, "updated", updated, actor, now));
  } else if (entity.level === "project_user") {
    const row = await projectUsers.getForChange(trx, actor.workspaceId, entity.id);
    if (!row) return;
    const changes = type === "billable_rates" ? { rate: amount, rate_last_updated: now } : { labour_cost: Math.round(amount), labour_cost_last_updated: now };
    if (type === "billable_rates" ? row.rate === amount : row.labour_cost === Math.round(amount)) return;
    await emit(projectUserEvent("updated", await projectUsers.update(trx, row, { ...changes, at: now }), actor));
  } else if (entity.level === "task" && type === "billable_rates") {
    const row = await tasks.getForChange(trx, actor.workspaceId, entity.id);
    if (!row || row.rate === amount) return;
    const updated = await tasks.update(trx, row, { rate: amount, rate_last_updated: now, at: now });
    await emit(await taskEvent(trx, "updated", updated, actor));
  }
}
