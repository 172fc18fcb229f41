import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { AlertSchema, AlertService, type Alert } from "../../../gen/tracking/v1/alerts_pb.js";
import { requireStorageId } from "../../../lib/ids.js";
import { trackingScope } from "../scope.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { alertIdInvalid, alertNotFound, invalidProject } from "../errors.js";
import { projects } from "../projects/store.js";
import { alerts, type AlertRow } from "./store.js";
import { alertSettings, arrayText, checkReceiverUsers } from "./rules.js";

function alertMessage(row: AlertRow): Alert {
  return create(AlertSchema, {
    id: BigInt(row.id),
    wid: BigInt(row.workspace_id),
    projectId: row.project_id === null ? undefined : BigInt(row.project_id),
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

export function alertHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;
  return (router: ConnectRouter) =>
    router.service(AlertService, {
      async listAlerts(req, ctx) {
        const scope = trackingScope(ctx);
        return { alerts: (await alerts.list(db, scope.workspace)).map(alertMessage) };
      },

      async createAlert(req, ctx) {
        const scope = trackingScope(ctx);
        const settings = alertSettings(req);
        if (settings.receiverUsers.length) {
          const { members } = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
          checkReceiverUsers(settings.receiverUsers, new Set(members.map((m) => Number(m.userId))));
        }
        const row = await storage.change(async (trx) => {
          if (settings.projectId !== undefined) {
            if (!(await projects.getLive(trx, scope.workspace, settings.projectId))) throw invalidProject();
          }
          return alerts.insert(trx, {
            workspace_id: scope.workspace,
            project_id: settings.projectId === undefined ? null : Number(settings.projectId),
            object_type: settings.objectType,
            source_kind: settings.sourceKind,
            threshold_type: settings.thresholdType,
            thresholds: settings.thresholds,
            receivers: settings.receivers,
            receiver_roles: settings.receiverRoles,
            receiver_users: settings.receiverUsers,
            creator_id: Number(scope.userId),
            created_at: clock.now(),
          });
        });
        return { alert: alertMessage(row) };
      },

      async deleteAlert(req, ctx) {
        const scope = trackingScope(ctx);
        requireStorageId(req.alertId, alertIdInvalid);
        await changeRow(storage, alerts, { scope: scope.workspace, id: req.alertId, missing: alertNotFound }, (existing, trx) => alerts.delete(trx, existing));
        return {};
      },
    });
}
