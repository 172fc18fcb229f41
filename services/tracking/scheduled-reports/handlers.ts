import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ScheduledReportSchema, ScheduledReportService, type ScheduledReport } from "../../../gen/tracking/v1/saved_reports_pb.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { bookmarkNotFound, scheduledReportNotFound } from "../errors.js";
import { trackingScope } from "../scope.js";
import { savedReports } from "../saved-reports/store.js";
import { scheduleSettings, usableRecipients } from "./rules.js";
import { scheduledReportSends, scheduledReports, type ScheduledReportRow } from "./store.js";

function scheduledReportMessage(row: ScheduledReportRow): ScheduledReport {
  return create(ScheduledReportSchema, {
    reportId: row.id,
    workspaceId: row.workspace_id,
    bookmarkId: row.saved_report_id,
    creatorId: row.creator_id,
    frequency: row.frequency,
    userIds: row.user_ids,
    groupIds: row.group_ids,
    createdAt: timestampFromDate(row.created_at),
  });
}

/** A workspace's scheduled reports (admins); the mails go out from scheduler.ts. */
export function scheduledReportHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;
  return (router: ConnectRouter) =>
    router.service(ScheduledReportService, {
      async listScheduledReports(req, ctx) {
        const scope = trackingScope(ctx);
        return { scheduledReports: (await scheduledReports.list(db, scope.workspaceId)).map(scheduledReportMessage) };
      },

      async createScheduledReport(req, ctx) {
        const scope = trackingScope(ctx);
        const settings = scheduleSettings(req.schedule);
        if (!(await savedReports.get(db, scope.workspaceId, settings.savedReportId))) throw bookmarkNotFound();
        const workspaceId = scope.workspaceId;
        const [{ members }, { groups }] = await Promise.all([
          identity.listWorkspaceMembers({ workspaceId }),
          settings.groupIds.length ? identity.resolveGroups({ workspaceId, groupIds: settings.groupIds }) : { groups: [] },
        ]);
        const recipients = usableRecipients(
          settings,
          new Set(members.filter((m) => m.active).map((m) => m.userId)),
          new Set(groups.filter((g) => g.workspaceIds.includes(workspaceId)).map((g) => g.groupId)),
        );
        const row = await storage.change(async (trx) => {
          // The saved report may have gone since: a schedule never outlives it.
          if (!(await savedReports.getForChange(trx, scope.workspaceId, settings.savedReportId))) throw bookmarkNotFound();
          return scheduledReports.insert(trx, {
            workspace_id: scope.workspaceId,
            saved_report_id: settings.savedReportId,
            frequency: settings.frequency,
            user_ids: recipients.userIds,
            group_ids: recipients.groupIds,
            creator_id: scope.userId,
            created_at: clock.now(),
          });
        });
        return { scheduledReport: scheduledReportMessage(row) };
      },

      async deleteScheduledReport(req, ctx) {
        const scope = trackingScope(ctx);
        await changeRow(storage, scheduledReports, { scope: scope.workspaceId, id: req.reportId, missing: scheduledReportNotFound }, async (existing, trx) => {
          await scheduledReportSends.query(trx, scope.workspaceId).where({ scheduled_report_id: existing.id }).delete();
          await scheduledReports.delete(trx, existing);
        });
        return {};
      },
    });
}
