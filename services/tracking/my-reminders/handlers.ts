import type { ConnectRouter } from "@connectrpc/connect";
import { MyTrackReminderService } from "../../../gen/tracking/v1/my_track_reminders_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { trackingUserScope } from "../scope.js";
import { reminders, type ReminderRow } from "../reminders/store.js";
import { reminderMessage } from "../reminders/view.js";

/** The reminders that apply to the caller: in their workspaces, naming them directly or through one of their groups. */
export function myReminderHandlers({ storage, identity }: ResourceKit) {
  const { db } = storage;
  return (router: ConnectRouter) =>
    router.service(MyTrackReminderService, {
      async listMyTrackReminders(_req, ctx) {
        const user = trackingUserScope(ctx);
        const me = user.userId;
        const out: ReminderRow[] = [];
        for (const workspace of await user.memberships()) {
          const rows = await reminders.list(db, workspace);
          if (rows.length === 0) continue;
          let groups = new Set<bigint>();
          if (rows.some((r) => r.group_ids.length > 0 && !r.user_ids.includes(me))) {
            const answer = await identity.resolveGroups({ workspaceId: workspace });
            groups = new Set(answer.groups.filter((g) => g.userIds.includes(user.userId)).map((g) => g.groupId));
          }
          out.push(...rows.filter((r) => r.user_ids.includes(me) || r.group_ids.some((g) => groups.has(g))));
        }
        return { trackReminders: out.map(reminderMessage) };
      },
    });
}
