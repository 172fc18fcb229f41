import type { ConnectRouter } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { RateService } from "../../../gen/tracking/v1/rates_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { TrackingKit } from "../kit.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { rateAccessDenied, rateAmountInvalid, rateEntityInvalid, ratePayloadMissing, rateTaskMissing } from "../errors.js";
import { canSee, isManager } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { projectUsers } from "../project-users/store.js";
import { tasks } from "../tasks/store.js";
import { isAccountsRateLevel, rateLevelOf, rateTiming, rateTypeOf } from "./rules.js";
import { applyCurrentRate, rateKey, type RateEntity } from "./sync.js";
import { rateHistory, type RateLevel, type RateType } from "./store.js";
import { rateMessage } from "./view.js";

/**
 * Rates of every level, with their history. Those of projects, project users and tasks are kept
 * here: a new rate that holds now also becomes the entity's current rate (`rate`, or a project
 * user's `labour_cost` for labor costs), with the entity's event, in the same change. Those of
 * workspaces and workspace users are the accounts service's: checked here (body, workspace
 * admins only), then handed over, outside any transaction of this service.
 */
export function rateHandlers({ storage, clock, workspaceRates }: TrackingKit) {
  const { db } = storage;

  /** The live entity of the level that the caller sees (its project too). */
  async function entityOf(q: Knex, scope: TrackingScope, level: RateLevel, id: bigint): Promise<RateEntity> {
    const missing = level === "task" ? rateTaskMissing : rateEntityInvalid;
    let entity: RateEntity | undefined;
    if (level === "project") {
      const project = await projects.getLive(q, scope.workspaceId, id);
      if (project) entity = { level, id: project.id, projectId: project.id, projectUserId: null, taskId: null };
    } else if (level === "project_user") {
      const pu = await projectUsers.get(q, scope.workspaceId, id);
      if (pu) entity = { level, id: pu.id, projectId: pu.project_id, projectUserId: pu.id, taskId: null };
    } else {
      const task = await tasks.getLive(q, scope.workspaceId, id);
      if (task) entity = { level, id: task.id, projectId: task.project_id, projectUserId: null, taskId: task.id };
    }
    if (!entity) throw missing();
    const project = await projects.getLive(q, scope.workspaceId, entity.projectId);
    if (!project || !(await canSee(q, scope.viewer, project))) throw missing();
    return entity;
  }

  /** Billable rates: admins, the project's managers (to change) or members where the workspace shows rates (to read); labor costs: admins. */
  async function checkAccess(q: Knex, scope: TrackingScope, entity: RateEntity, type: RateType, change: boolean): Promise<void> {
    if (scope.admin) return;
    if (type === "billable_rates") {
      if (change && (await isManager(q, scope.workspaceId, entity.projectId, scope.userId))) return;
      if (!change && !scope.rules.onlyAdminsSeeBillableRates) return;
    }
    throw rateAccessDenied();
  }

  return (router: ConnectRouter) =>
    router.service(RateService, {
      async createRate(req, ctx) {
        const scope = trackingScope(ctx);
        if (!req.level.trim() && req.levelId === undefined && req.amount === undefined) throw ratePayloadMissing();
        const level = rateLevelOf(req.level);
        if (req.levelId === undefined) throw level === "task" ? rateTaskMissing() : rateEntityInvalid();
        const type = rateTypeOf(req.type);
        if (req.amount === undefined || !(req.amount > 0)) throw rateAmountInvalid();
        const amount = req.amount;
        const { mode, start } = rateTiming(req.mode, req.start);
        if (isAccountsRateLevel(level)) {
          if (!scope.admin) throw rateAccessDenied();
          const timing = { mode: mode ?? undefined, start: start && timestampFromDate(start) };
          await workspaceRates.createWorkspaceRate({ workspaceId: scope.workspaceId, level, levelId: req.levelId, type, amount, ...timing, creatorId: scope.userId });
          return {};
        }
        await storage.change(async (trx, emit) => {
          const entity = await entityOf(trx, scope, level, req.levelId!);
          await checkAccess(trx, scope, entity, type, true);
          const now = clock.now();
          const rate = { workspace_id: scope.workspaceId, level, level_id: entity.id, project_id: entity.projectId, project_user_id: entity.projectUserId, task_id: entity.taskId };
          await rateHistory.add(trx, { ...rate, type, amount, rate_change_mode: mode, creator_id: scope.userId }, start, now);
          await applyCurrentRate(trx, emit, scope, entity, type, now);
        });
        return {};
      },

      async listRates(req, ctx) {
        const scope = trackingScope(ctx);
        const level = rateLevelOf(req.level);
        const type = rateTypeOf(req.type);
        if (isAccountsRateLevel(level)) {
          if (!scope.admin) throw rateAccessDenied();
          return { rates: (await workspaceRates.listWorkspaceRates({ workspaceId: scope.workspaceId, level, levelId: req.levelId, type })).rates };
        }
        const entity = await entityOf(db, scope, level, req.levelId);
        await checkAccess(db, scope, entity, type, false);
        return { rates: (await rateHistory.all(db, rateKey(scope.workspaceId, entity, type))).map(rateMessage) };
      },
    });
}
