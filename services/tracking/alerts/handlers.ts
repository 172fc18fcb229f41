import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { AlertSchema, AlertService, type Alert } from "../../../gen/tracking/v1/alerts_pb.js";
import { requireRowId } from "../../../lib/ids.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import type { Knex } from "../../../lib/db.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { alertIdInvalid, alertNotFound, invalidProject } from "../errors.js";
import { projects } from "../projects/store.js";
import { alerts, type AlertRow } from "./store.js";
import { type AlertBody, type AlertSettings, alertSettings, arrayText, checkReceiverUsers } from "./rules.js";

function alertMessage(row: AlertRow): Alert {
  return create(AlertSchema, {
    id: row.id,
    wid: row.workspace_id,
    projectId: row.project_id ?? undefined,
    objectType: row.object_type,
    sourceKind: row.source_kind,
    thresholdType: row.threshold_type,
    threshold: BigInt(row.thresholds[0] ?? 0),
    thresholds: arrayText(row.thresholds),
    receivers: row.receivers,
    receiverRoles: arrayText(row.receiver_roles),
    receiverUsers: arrayText(row.receiver_users),
    receiverGroups: arrayText([]),
    // Alerts are not evaluated yet, so none has met a problem.
    errors: [],
  });
}

/** The stored columns of checked settings. */
function storedSettings(settings: AlertSettings): Omit<AlertRow, "id" | "workspace_id" | "creator_id" | "created_at"> {
  return {
    project_id: settings.projectId ?? null,
    object_type: settings.objectType,
    source_kind: settings.sourceKind,
    threshold_type: settings.thresholdType,
    thresholds: settings.thresholds,
    receivers: settings.receivers,
    receiver_roles: settings.receiverRoles,
    receiver_users: settings.receiverUsers,
  };
}

export function alertHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  /** The body's settings, its receiver users asked of the accounts service before any change. */
  async function checkedSettings(scope: TrackingScope, body: AlertBody): Promise<AlertSettings> {
    const settings = alertSettings(body);
    if (settings.receiverUsers.length) {
      const { members } = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
      checkReceiverUsers(settings.receiverUsers, new Set(members.map((m) => m.userId)));
    }
    return settings;
  }

  /** The watched project must be a live project of the workspace. */
  async function checkProject(trx: Knex.Transaction, scope: TrackingScope, settings: AlertSettings): Promise<void> {
    if (settings.projectId === undefined) return;
    if (!(await projects.getLive(trx, scope.workspaceId, settings.projectId))) throw invalidProject();
  }
  return (router: ConnectRouter) =>
    router.service(AlertService, {
      async listAlerts(req, ctx) {
        const scope = trackingScope(ctx);
        return { alerts: (await alerts.list(db, scope.workspaceId)).map(alertMessage) };
      },

      async createAlert(req, ctx) {
        const scope = trackingScope(ctx);
        const settings = await checkedSettings(scope, req);
        const row = await storage.change(async (trx) => {
          await checkProject(trx, scope, settings);
          return alerts.insert(trx, {
            workspace_id: scope.workspaceId,
            ...storedSettings(settings),
            creator_id: scope.userId,
            created_at: clock.now(),
          });
        });
        return { alert: alertMessage(row) };
      },

      async updateAlert(req, ctx) {
        const scope = trackingScope(ctx);
        requireRowId(req.alertId, alertIdInvalid);
        const settings = await checkedSettings(scope, req);
        const row = await changeRow(storage, alerts, { scope: scope.workspaceId, id: req.alertId, missing: alertNotFound }, async (existing, trx) => {
          await checkProject(trx, scope, settings);
          return alerts.update(trx, existing, storedSettings(settings));
        });
        return { alert: alertMessage(row) };
      },

      async deleteAlert(req, ctx) {
        const scope = trackingScope(ctx);
        requireRowId(req.alertId, alertIdInvalid);
        await changeRow(storage, alerts, { scope: scope.workspaceId, id: req.alertId, missing: alertNotFound }, (existing, trx) => alerts.delete(trx, existing));
        return {};
      },
    });
}
