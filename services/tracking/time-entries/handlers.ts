import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { TimeEntryService, type TimeEntryBody } from "../../../gen/tracking/v1/time_entries_pb.js";
import { applyEach, parseIdList, parsePatchOperations } from "../../../lib/bulk-patch.js";
import { noAccess } from "../../../lib/errors.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { type TrackingScope, trackingScope, trackingUserScope } from "../scope.js";
import { createdWithMissing, INVALID_TIME_ENTRY_IDS, listDatesReversed, listDatesUnpaired, resourceNotFound, startMissing, timeEntryChangedConcurrently, timeEntryIdInvalid, timeEntryNotFound, timeEntryStopped, workspaceIdMismatch } from "../errors.js";
import { deleteEntry, saveEntry, stopEntry, type ChangeContext, type EntryChange } from "./changes.js";
import { ENTRY_PATCH_PATHS, patchChange } from "./patch.js";
import { entryInstant, knownZone, listBound, newestFirst, parseDay, RECENT_DAYS, tagAction, withStartDate } from "./rules.js";
import { runningEntry, timeEntries, userEntries, type TimeEntryRow } from "./store.js";
import { entryMessages, savedEntryMessage, type EntryView } from "./view.js";

/** Concurrent starts of one user collide on the running-entry key (or two on a new tag name): the loser runs again. */
/** Runs of a time entry change that collides on a unique key with a concurrent one before it answers 409. */
const COLLISION_RUNS = 3;

/** A body's id: 0 clears it (null), absent leaves it. */
const bodyId = (v: bigint | undefined) => (v === undefined ? undefined : v === 0n ? null : v);

/** The body's values as a change; ids 0 clear the project or task (JSON null cannot be told from absent). */
function bodyChange(body: TimeEntryBody | undefined, workspaceId: bigint, creating: boolean): EntryChange {
  const b = body ?? ({} as Partial<TimeEntryBody>);
  for (const wid of [b.workspaceId, b.wid]) {
    if (wid !== undefined && wid !== 0n && wid !== workspaceId) throw workspaceIdMismatch();
  }
  if (creating && !b.createdWith?.trim()) throw createdWithMissing();
  if (creating && !b.start) throw startMissing();
  let start = b.start ? entryInstant(b.start, "start") : undefined;
  if (creating && start && b.startDate) start = withStartDate(start, b.startDate);
  const action = tagAction(b.tagAction);
  const userId = b.userId ?? b.uid;
  return {
    start,
    stop: b.stop ? entryInstant(b.stop, "stop") : undefined,
    duration: b.duration === undefined ? undefined : Number(b.duration),
    description: b.description,
    billable: b.billable,
    projectId: bodyId(b.projectId ?? b.pid),
    taskId: bodyId(b.taskId ?? b.tid),
    tags: b.tagIds?.length || b.tags?.length ? [{ action, ids: b.tagIds ?? [], names: b.tags ?? [] }] : undefined,
    sharedWith: b.sharedWithUserIds?.length ? b.sharedWithUserIds : undefined,
    userId,
    createdWith: b.createdWith?.trim(),
  };
}

export function timeEntryHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  const memberNames = async (workspace: bigint) => {
    const answer = await identity.listWorkspaceMembers({ workspaceId: workspace });
    return new Map(answer.members.map((m) => [m.userId, m.fullname]));
  };

  const view = (meta: boolean, sharing: boolean): EntryView => ({ meta, sharing: sharing ? memberNames : undefined });

  /**
   * The workspace's members, asked of the accounts service before a change's transaction begins (no
   * call to another service while rows are locked), and only when the change names users.
   */
  async function membersFor(scope: TrackingScope, input: EntryChange): Promise<Set<bigint>> {
    const namesUsers = input.userId !== undefined || (input.sharedWith?.length ?? 0) > 0;
    return namesUsers ? new Set((await memberNames(scope.workspaceId)).keys()) : new Set<bigint>();
  }

  /** One change with its context; the loser of a collision on a unique key runs again. */
  async function change<T>(scope: TrackingScope, members: Set<bigint>, work: (cx: ChangeContext) => Promise<T>): Promise<T> {
    return storage.change((trx, emit) => work({ trx, emit, scope, now: clock.now(), members }), { againOnDuplicate: { attempts: COLLISION_RUNS, giveUp: timeEntryChangedConcurrently } });
  }

  /** The workspace's entry, live, locked, that the caller may change (their own, or any as an admin). */
  async function entryForChange(cx: ChangeContext, id: bigint): Promise<TimeEntryRow> {
    const existing = await timeEntries.getForChange(cx.trx, cx.scope.workspaceId, id);
    if (!existing || existing.server_deleted_at) throw timeEntryNotFound();
    if (existing.user_id !== cx.scope.userId && !cx.scope.admin) throw noAccess();
    return existing;
  }

  const one = async (row: TimeEntryRow, v: EntryView) => (await entryMessages(db, [row], v))[0];

  /** A date alone is read in the user's own time zone (their profile's); asked only when a bound is a date alone. */
  async function userZone(userId: bigint): Promise<string> {
    const profile = await identity.getUserProfile({ userId });
    return knownZone(profile.timezone);
  }

  return (router: ConnectRouter) =>
    router.service(TimeEntryService, {
      async listMyTimeEntries(req, ctx: HandlerContext) {
        const { userId, userId: user } = trackingUserScope(ctx);
        const q = userEntries(db, user);
        if (req.since !== undefined) q.where("at", ">=", new Date(Number(req.since) * 1000));
        else q.whereNull("server_deleted_at");
        const dayAlone = [req.before, req.startDate, req.endDate].some((r) => r !== undefined && parseDay(r));
        const zone = dayAlone ? await userZone(userId) : "UTC";
        if (req.before !== undefined) q.where("start", "<", listBound(req.before, "before", zone));
        if ((req.startDate === undefined) !== (req.endDate === undefined)) throw listDatesUnpaired();
        if (req.startDate !== undefined && req.endDate !== undefined) {
          const from = listBound(req.startDate, "start_date", zone);
          const to = listBound(req.endDate, "end_date", zone);
          if (to <= from) throw listDatesReversed();
          q.where("start", ">=", from).where("start", "<", to);
        }
        if (req.since === undefined && req.before === undefined && req.startDate === undefined) {
          q.where("start", ">=", new Date(clock.now().getTime() - RECENT_DAYS * 86_400_000));
        }
        // Sorted here, not in SQL: an ORDER BY start would lead SQLite's planner to walk the
        // (user_id, start) index for a `since` filter instead of using (user_id, at).
        const rows = (await timeEntries.readAll(db, q)).sort(newestFirst);
        return { timeEntries: await entryMessages(db, rows, view(req.meta, req.includeSharing)) };
      },

      async getCurrentTimeEntry(_req, ctx) {
        const row = await runningEntry(db, trackingUserScope(ctx).userId);
        return { timeEntry: row ? await one(row, {}) : undefined };
      },

      async getMyTimeEntry(req, ctx) {
        const id = rowId(req.timeEntryId);
        const raw = id === undefined ? undefined : await userEntries(db, trackingUserScope(ctx).userId).where("id", idBinding(id)).whereNull("server_deleted_at").first();
        if (!raw) throw resourceNotFound();
        return { timeEntry: await one(timeEntries.read(raw), view(req.meta, req.includeSharing)) };
      },

      async createTimeEntry(req, ctx) {
        const scope = trackingScope(ctx);
        const input = bodyChange(req.entry, req.workspaceId, true);
        const saved = await change(scope, await membersFor(scope, input), (cx) => saveEntry(cx, undefined, input));
        return { timeEntry: await savedEntryMessage(db, saved, view(req.meta, false)) };
      },

      async updateTimeEntry(req, ctx) {
        const scope = trackingScope(ctx);
        const input = bodyChange(req.entry, req.workspaceId, false);
        const saved = await change(scope, await membersFor(scope, input), async (cx) => saveEntry(cx, await entryForChange(cx, req.timeEntryId), input));
        return { timeEntry: await savedEntryMessage(db, saved, view(req.meta, req.includeSharing)) };
      },

      async patchTimeEntries(req, ctx) {
        const scope = trackingScope(ctx);
        const ids = parseIdList(req.timeEntryIds, { max: 100, invalid: INVALID_TIME_ENTRY_IDS });
        const input = patchChange(parsePatchOperations(req.operations ? toJson(ValueSchema, req.operations) : undefined, ENTRY_PATCH_PATHS));
        const members = await membersFor(scope, input);
        const result = await applyEach(ids, (id) => change(scope, members, async (cx) => void (await saveEntry(cx, await entryForChange(cx, id), input))));
        return result;
      },

      async deleteTimeEntry(req, ctx) {
        const scope = trackingScope(ctx);
        await change(scope, new Set(), async (cx) => deleteEntry(cx, await entryForChange(cx, req.timeEntryId)));
        return {};
      },

      async stopTimeEntry(req, ctx) {
        const scope = trackingScope(ctx);
        if (rowId(req.timeEntryId) === undefined) throw timeEntryIdInvalid();
        const saved = await change(scope, new Set(), async (cx) => stopEntry(cx, await entryForChange(cx, req.timeEntryId), timeEntryStopped));
        return { timeEntry: saved.message };
      },
    });
}
