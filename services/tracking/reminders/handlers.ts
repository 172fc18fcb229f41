import type { ConnectRouter } from "@connectrpc/connect";
import { TrackReminderService } from "../../../gen/tracking/v1/reminders_pb.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { reminderNotFound } from "../errors.js";
import { reminderChecks, reminders, type ReminderRow } from "./store.js";
import { reminderMessage } from "./view.js";
import { checkGroups, checkMembers, reminderSettings, type ReminderInput, type ReminderSettings } from "./rules.js";

export function reminderHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  /** The request's settings, with its users members of the workspace and its groups assigned to it. */
  async function validSettings(scope: TrackingScope, input: ReminderInput): Promise<ReminderSettings> {
    const settings = reminderSettings(input);
    const workspaceId = scope.workspaceId;
    const [members, groups] = await Promise.all([
      settings.userIds.length ? identity.listWorkspaceMembers({ workspaceId }) : undefined,
      settings.groupIds.length ? identity.resolveGroups({ workspaceId, groupIds: settings.groupIds }) : undefined,
    ]);
    if (members) checkMembers(settings.userIds, new Set(members.members.map((m) => m.userId)));
    if (groups) checkGroups(settings.groupIds, new Set(groups.groups.filter((g) => g.workspaceIds.includes(workspaceId)).map((g) => g.groupId)));
    return settings;
  }

  return (router: ConnectRouter) =>
    router.service(TrackReminderService, {
      async listTrackReminders(req, ctx) {
        const scope = trackingScope(ctx);
        const rows = await reminders.list(db, scope.workspaceId);
        return { trackReminders: rows.map(reminderMessage) };
      },

      async createTrackReminder(req, ctx) {
        const scope = trackingScope(ctx);
        const settings = await validSettings(scope, req.settings ?? {});
        const now = clock.now();
        const row = await storage.change((trx) =>
          reminders.insert(trx, {
            workspace_id: scope.workspaceId,
            frequency: settings.frequency,
            threshold: settings.threshold,
            user_ids: settings.userIds,
            group_ids: settings.groupIds,
            creator_id: scope.userId,
            created_at: now,
            at: now,
          }),
        );
        return { trackReminder: reminderMessage(row) };
      },

      async updateTrackReminder(req, ctx) {
        const scope = trackingScope(ctx);
        if (!(await reminders.get(db, scope.workspaceId, req.reminderId))) throw reminderNotFound();
        const settings = await validSettings(scope, req.settings ?? {});
        const changes: Partial<ReminderRow> = { frequency: settings.frequency, threshold: settings.threshold, user_ids: settings.userIds, group_ids: settings.groupIds, at: clock.now() };
        const row = await changeRow(storage, reminders, { scope: scope.workspaceId, id: req.reminderId, missing: reminderNotFound }, (existing, trx) => reminders.update(trx, existing, changes));
        return { trackReminder: reminderMessage(row) };
      },

      async deleteTrackReminder(req, ctx) {
        const scope = trackingScope(ctx);
        await changeRow(storage, reminders, { scope: scope.workspaceId, id: req.reminderId, missing: reminderNotFound }, async (existing, trx) => {
          await reminders.delete(trx, existing);
          await reminderChecks.query(trx, scope.workspaceId).where({ reminder_id: existing.id }).delete();
        });
        return {};
      },
    });
}
