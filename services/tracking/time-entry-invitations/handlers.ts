import { create, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { TimeEntryInvitationService, TimeEntryInvitationSchema, TimeEntrySharingSchema, type TimeEntrySharing } from "../../../gen/tracking/v1/time_entry_invitations_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { noAccess } from "../../../lib/errors.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import { trackingScope, trackingUserScope } from "../scope.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";
import { entryEvent, entryMessages } from "../time-entries/view.js";
import { invitationIdInvalid, sharingWorkspaceInvalid } from "../errors.js";
import { INVITATION_DAYS, invitationAnswer, sharingQuestions } from "./rules.js";
import { ensureInvitations, invitations, type InvitationRow } from "./store.js";

const DAY_MS = 86_400_000;

/** The entry an invitee keeps on accepting: the shared one's fields, stopped (a running one at the moment of accepting). */
function acceptedCopy(entry: TimeEntryRow, userId: bigint, now: Date): Omit<TimeEntryRow, "id"> {
  const stop = entry.stop ?? (entry.duration >= 0 ? new Date(entry.start.getTime() + entry.duration * 1000) : now);
  return {
    workspace_id: entry.workspace_id, user_id: userId, project_id: entry.project_id, task_id: entry.task_id, description: entry.description, billable: entry.billable,
    start: entry.start, stop, duration: Math.max(0, Math.round((stop.getTime() - entry.start.getTime()) / 1000)), running_user_id: null, tag_ids: entry.tag_ids,
    shared_with_user_ids: [], created_with: "time entry invitation", created_at: now, at: now, server_deleted_at: null,
  };
}

/**
 * Invitations of shared time entries: a time entry keeps whom it is shared with; each of them
 * has an invitation (made when first asked for) that is pending until they accept it (the entry
 * is copied into their own, with a `time_entry created` event) or reject it.
 */
export function timeEntryInvitationHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  async function names(workspaceId: bigint): Promise<Map<bigint, string>> {
    const res = await identity.listWorkspaceMembers({ workspaceId });
    return new Map(res.members.map((m) => [m.userId, m.fullname]));
  }

  /** The live entries of the workspace, from the last INVITATION_DAYS, shared with the user. */
  async function sharedWith(workspace: bigint, userId: bigint): Promise<TimeEntryRow[]> {
    const since = new Date(clock.now().getTime() - INVITATION_DAYS * DAY_MS);
    const rows = await timeEntries.query(db, workspace).whereNot("user_id", idBinding(userId)).whereNull("server_deleted_at").where("start", ">=", since).orderBy("start").orderBy("id");
    return rows.map((raw: Record<string, unknown>) => timeEntries.read(raw)).filter((e: TimeEntryRow) => e.shared_with_user_ids.includes(userId));
  }

  return (router: ConnectRouter) =>
    router.service(TimeEntryInvitationService, {
      async listTimeEntryInvitations(_req, ctx) {
        const scope = trackingScope(ctx);
        const me = scope.userId;
        const entries = await sharedWith(scope.workspaceId, me);
        if (entries.length === 0) return { invitations: [] };
        const made = await storage.change((trx) => ensureInvitations(trx, entries, clock.now()));
        const pending = made.filter((i) => i.user_id === me && i.status === "pending");
        const byId = new Map(entries.map((e) => [e.id, e]));
        const people = await names(scope.workspaceId);
        const messages = await entryMessages(db, pending.map((i) => byId.get(i.time_entry_id)!));
        return {
          invitations: pending.map((i, n) => create(TimeEntryInvitationSchema, {
            timeEntryInvitationId: i.id,
            workspaceId: i.workspace_id,
            sharedByUserId: i.shared_by_user_id,
            sharedByUserName: people.get(i.shared_by_user_id) ?? "",
            timeEntry: messages[n],
          })),
        };
      },

      async answerTimeEntryInvitation(req, ctx) {
        const scope = trackingScope(ctx);
        const answer = invitationAnswer(req.action);
        const me = scope.userId;
        if (rowId(req.timeEntryInvitationId) === undefined) throw invitationIdInvalid();
        await storage.change(async (trx, emit) => {
          const invitation = await invitations.getForChange(trx, scope.workspaceId, req.timeEntryInvitationId);
          if (!invitation || invitation.user_id !== me || invitation.status !== "pending") throw invitationIdInvalid();
          const entry = await timeEntries.getForChange(trx, scope.workspaceId, invitation.time_entry_id);
          // An entry deleted or no longer shared with the caller invites no more.
          if (!entry || entry.server_deleted_at !== null || !entry.shared_with_user_ids.includes(me)) throw invitationIdInvalid();
          const now = clock.now();
          await invitations.update(trx, invitation, { status: answer, at: now });
          if (answer === "accepted") {
            const copy = await timeEntries.insert(trx, acceptedCopy(entry, me, now));
            await emit(await entryEvent(trx, "created", copy, scope.userId));
          }
        });
        return {};
      },

      async listTimeEntrySharing(req, ctx) {
        const user = trackingUserScope(ctx);
        const questions = sharingQuestions(req.entries ? toJson(ValueSchema, req.entries) : undefined);
        const mine = new Set(await user.memberships());
        for (const q of questions) if (!mine.has(q.workspaceId)) throw sharingWorkspaceInvalid();
        const entries: TimeEntryRow[] = [];
        for (const q of questions) {
          const entry = await timeEntries.get(db, q.workspaceId, q.timeEntryId);
          // Only the entry's owner learns whom it is shared with.
          if (!entry || entry.server_deleted_at !== null || entry.user_id !== user.userId) throw noAccess();
          entries.push(entry);
        }
        const made: InvitationRow[] = entries.some((e) => e.shared_with_user_ids.length > 0) ? await storage.change((trx) => ensureInvitations(trx, entries, clock.now())) : [];
        const people = new Map<bigint, Map<bigint, string>>();
        const out: TimeEntrySharing[] = [];
        for (const entry of entries) {
          if (!people.has(entry.workspace_id)) people.set(entry.workspace_id, await names(entry.workspace_id));
          for (const userId of entry.shared_with_user_ids) {
            const invitation = made.find((i) => i.time_entry_id === entry.id && i.user_id === userId);
            out.push(create(TimeEntrySharingSchema, {
              timeEntryId: entry.id,
              workspaceId: entry.workspace_id,
              userId,
              userName: people.get(entry.workspace_id)!.get(userId) ?? "",
              timeEntryInvitationId: invitation?.id ?? 0n,
              isAccepted: invitation?.status === "accepted",
            }));
          }
        }
        return { sharing: out };
      },
    });
}
