import { create, toJson } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  MyTimesheetSchema, TimesheetSchema, TimesheetService, TimesheetSetupSchema, type Timesheet, type TimesheetChange, type TimesheetSetup,
} from "../../../gen/tracking/v1/timesheets_pb.js";
import type { WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { compareIds, idBinding, rowId } from "../../../lib/ids.js";
import { type TrackingScope, trackingScope, trackingUserScope } from "../scope.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";
import { knownZone, parseDay, zonedTime } from "../time-entries/rules.js";
import { entryMessages } from "../time-entries/view.js";
import {
  timesheetApproverIsMember, timesheetApproverNotAdmin, timesheetDenied, timesheetInvalidDate, timesheetInvalidId, timesheetInvalidUserId,
  timesheetMemberHasSetup, timesheetSetupIdInvalid, timesheetSetupInUse, timesheetSetupNotFound, timesheetTooManyUserIds, timesheetUserNotInWorkspace,
  invalidValue, sortOrderInvalid, timesheetInvalidTransition,
} from "../errors.js";
import {
  addDays, begunPeriods, checkEndDate, checkTransition, DEFAULT_PER_PAGE, idList, MAX_PER_PAGE, periodicity, periodStartingOn, reminderDay, reminderTime,
  namedChanges, setupStart, timesheetDate, timesheetStatus, workingMinutes, type Period, type Role,
} from "./rules.js";
import { liveSetups, storedTimesheets, timesheetForChange, timesheets, timesheetSetups, type TimesheetRow, type TimesheetSetupRow } from "./store.js";

/** The most members one POST sets up. */
const MAX_MEMBERS = 100;

type People = Map<bigint, WorkspaceMember>;

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);
const today = (now: Date, timeZone: string) => new Intl.DateTimeFormat("en-CA", { timeZone: knownZone(timeZone), year: "numeric", month: "2-digit", day: "2-digit" }).format(now);

/** The instants a period covers in the member's zone: from its first midnight to the one after its last day. */
function periodBounds(p: Period, timeZone: string): [Date, Date] {
  const zone = knownZone(timeZone);
  return [zonedTime(parseDay(p.start)!, zone), zonedTime(parseDay(addDays(p.end, 1))!, zone)];
}

function approvers(setup: TimesheetSetupRow, people: People) {
  return setup.approver_ids.map((id) => ({ userId: id, name: people.get(id)?.fullname ?? "" }));
}

/** What a setup and each of its timesheets say alike of the setup: its member, approvers, period and reminder. */
function setupFields(setup: TimesheetSetupRow, people: People) {
  const first = setup.approver_ids[0];
  return {
    workspaceId: setup.workspace_id,
    memberId: setup.member_id,
    memberName: people.get(setup.member_id)?.fullname ?? "",
    approverId: first,
    approverName: first === undefined ? undefined : (people.get(first)?.fullname ?? ""),
    approvers: approvers(setup, people),
    periodicity: setup.periodicity,
    reminderDay: setup.reminder_day ?? undefined,
    reminderTime: setup.reminder_time ?? undefined,
    endDate: setup.end_date ?? undefined,
  };
}

function setupMessage(row: TimesheetSetupRow, people: People): TimesheetSetup {
  return create(TimesheetSetupSchema, { id: row.id, ...setupFields(row, people), startDate: row.start_date });
}

function timesheetMessage(setup: TimesheetSetupRow, period: Period, stored: TimesheetRow | undefined, people: People): Timesheet {
  const status = stored?.status ?? "pending";
  const reviewer = stored?.approved_or_rejected_id ?? null;
  return create(TimesheetSchema, {
    timesheetSetupId: setup.id,
    ...setupFields(setup, people),
    startDate: period.start,
    periodStart: period.start,
    periodEnd: period.end,
    status,
    submittedAt: ts(stored?.submitted_at ?? null),
    approvedOrRejectedAt: ts(stored?.approved_or_rejected_at ?? null),
    approvedOrRejectedId: reviewer ?? undefined,
    approvedOrRejectedName: reviewer === null ? undefined : (people.get(reviewer)?.fullname ?? ""),
    rejectionComment: stored?.rejection_comment ?? undefined,
    reminderSentAt: ts(stored?.reminder_sent_at ?? null),
    workingHoursInMinutes: workingMinutes(period),
    periodEditable: status === "pending" || status === "rejected",
    periodLocked: status === "submitted" || status === "approved",
    reviews: reviewer !== null && (status === "approved" || status === "rejected")
      ? [{ userId: reviewer, name: people.get(reviewer)?.fullname ?? "", approved: status === "approved", rejectionComment: stored?.rejection_comment ?? undefined }]
      : [],
  });
}

/** The caller's parts in a setup: its member, and (as one of its approvers or a workspace admin) its approver. */
function rolesIn(scope: TrackingScope, setup: TimesheetSetupRow): Set<Role> {
  const me = scope.userId;
  const roles = new Set<Role>();
  if (setup.member_id === me) roles.add("member");
  if (scope.admin || setup.approver_ids.includes(me)) roles.add("approver");
  return roles;
}

const byStart = (a: { start: string }, b: { start: string }) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0);

/**
 * Timesheet approvals. A setup gives a member weekly or monthly periods from its start day (to its
 * end, which closes a period); each begun period is a timesheet, pending until something happens to
 * it. Admins see every setup and timesheet, others those they are the member or an approver of.
 */
export function timesheetHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  async function members(scope: TrackingScope): Promise<People> {
    const res = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
    return new Map(res.members.map((m) => [m.userId, m]));
  }

  async function visibleSetups(scope: TrackingScope): Promise<TimesheetSetupRow[]> {
    return (await liveSetups(db, scope.workspaceId)).filter((s) => rolesIn(scope, s).size > 0);
  }

  /** A live setup of the workspace the caller takes part in (missing: `missing`; not theirs: 403). */
  async function setupFor(scope: TrackingScope, id: bigint, missing: () => Error): Promise<TimesheetSetupRow> {
    const setup = await timesheetSetups.getLive(db, scope.workspaceId, id);
    if (!setup) throw missing();
    if (rolesIn(scope, setup).size === 0) throw timesheetDenied();
    return setup;
  }

  /** Approvers from `approver_ids` or `approver_id`: active admins of the workspace, none of them the members. */
  function checkedApprovers(input: { approverId?: bigint; approverIds: bigint[] }, people: People, memberIds: bigint[]): bigint[] {
    const ids = [...new Set(input.approverIds.length > 0 ? input.approverIds : input.approverId !== undefined ? [input.approverId] : [])];
    if (ids.length === 0 || ids.some((id) => rowId(id) === undefined)) throw timesheetInvalidUserId();
    for (const id of ids) {
      const person = people.get(id);
      if (!person || !person.active) throw timesheetUserNotInWorkspace();
      if (!person.admin) throw timesheetApproverNotAdmin();
      if (memberIds.includes(id)) throw timesheetApproverIsMember();
    }
    return ids;
  }

  /** The seconds the member tracked in the period (stopped, live entries). */
  async function periodEntries(setup: TimesheetSetupRow, period: Period, people: People): Promise<TimeEntryRow[]> {
    const [from, to] = periodBounds(period, people.get(setup.member_id)?.timezone ?? "UTC");
    const rows = await timeEntries.query(db, setup.workspace_id).where("user_id", idBinding(setup.member_id)).whereNull("server_deleted_at")
      .where("start", ">=", from).where("start", "<", to).orderBy("start").orderBy("id");
    return rows.map((raw: Record<string, unknown>) => timeEntries.read(raw));
  }

  /** Checks then applies timesheet changes, all in one change. */
  async function changeTimesheets(scope: TrackingScope, changes: { setup: TimesheetSetupRow; period: Period; change: TimesheetChange }[]): Promise<TimesheetRow[]> {
    const now = clock.now();
    const status = changes.map(({ change }) => timesheetStatus(change.status));
    return storage.change(async (trx) => {
      const out: TimesheetRow[] = [];
      for (const [i, { setup, period, change }] of changes.entries()) {
        const stored = await timesheetForChange(trx, scope.workspaceId, setup.id, period.start);
        const to = status[i];
        checkTransition(stored?.status ?? "pending", to, rolesIn(scope, setup), change.rejectionComment);
        const reviewed = to === "approved" || to === "rejected";
        const values: Partial<TimesheetRow> = {
          status: to,
          at: now,
          rejection_comment: to === "rejected" ? (change.rejectionComment ?? null) : null,
          ...(to === "submitted" ? { submitted_at: now } : {}),
          ...(reviewed ? { approved_or_rejected_at: now, approved_or_rejected_id: scope.userId } : {}),
          ...(to === "pending" ? { approved_or_rejected_at: null, approved_or_rejected_id: null, submitted_at: null } : {}),
        };
        if (stored) out.push(await timesheets.update(trx, stored, values));
        else {
          out.push(await timesheets.insert(trx, {
            workspace_id: scope.workspaceId, setup_id: setup.id, member_id: setup.member_id, start_date: period.start, status: to, submitted_at: null,
            approved_or_rejected_at: null, approved_or_rejected_id: null, rejection_comment: null, reminder_sent_at: null, created_at: now, at: now, ...values,
          } as Omit<TimesheetRow, "id">));
        }
      }
      return out;
    }, { againOnDuplicate: { attempts: 3, giveUp: timesheetInvalidTransition } });
  }

  /** The period a change names, which must have begun (a future period cannot be submitted or reviewed). */
  async function namedPeriod(scope: TrackingScope, setupId: bigint | undefined, startDate: string | undefined, people: People) {
    if (setupId === undefined || rowId(setupId) === undefined) throw timesheetInvalidId();
    if (startDate === undefined) throw timesheetInvalidDate();
    const setup = await setupFor(scope, setupId, timesheetInvalidId);
    const period = periodStartingOn(setup, startDate);
    if (period.start > today(clock.now(), people.get(setup.member_id)?.timezone ?? "UTC")) throw timesheetInvalidDate();
    return { setup, period };
  }

  return (router: ConnectRouter) =>
    router.service(TimesheetService, {
      async listTimesheetSetups(req, ctx) {
        const scope = trackingScope(ctx);
        const memberIds = idList(req.memberIds);
        const approverIds = idList(req.approverIds);
        const order = (req.sortOrder || "asc").toLowerCase();
        if (order !== "asc" && order !== "desc") throw sortOrderInvalid();
        const field = req.sortField || "start_date";
        if (!["start_date", "member_name", "id"].includes(field)) throw invalidValue("sort_field");
        const people = await members(scope);
        const rows = (await visibleSetups(scope))
          .filter((s) => memberIds.length === 0 || memberIds.includes(s.member_id))
          .filter((s) => approverIds.length === 0 || s.approver_ids.some((id) => approverIds.includes(id)));
        const key = (s: TimesheetSetupRow) => (field === "member_name" ? (people.get(s.member_id)?.fullname ?? "").toLowerCase() : field === "id" ? String(s.id).padStart(16, "0") : s.start_date);
        rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : compareIds(a.id, b.id)) * (order === "desc" ? -1 : 1));
        return { data: rows.map((s) => setupMessage(s, people)) };
      },

      async createTimesheetSetups(req, ctx) {
        const scope = trackingScope(ctx);
        const input = req.setup ?? ({ approverIds: [], memberIds: [] } as never);
        const memberIds = [...new Set(input.memberIds)];
        if (memberIds.length === 0 || memberIds.some((id) => rowId(id) === undefined)) throw timesheetInvalidUserId();
        if (memberIds.length > MAX_MEMBERS) throw timesheetTooManyUserIds();
        const people = await members(scope);
        for (const id of memberIds) if (!people.get(id)?.active) throw timesheetUserNotInWorkspace();
        const approverIds = checkedApprovers(input, people, memberIds);
        const kind = periodicity(input.periodicity);
        const start = setupStart(input.startDate, kind, today(clock.now(), "UTC"));
        const day = reminderDay(input.reminderDay);
        const time = reminderTime(input.reminderTime);
        const now = clock.now();
        const rows = await storage.change(async (trx) => {
          const existing = (await timesheetSetups.query(trx, scope.workspaceId).whereIn("member_id", memberIds.map(idBinding)).whereNull("deleted_at").forUpdate())
            .map((raw: Record<string, unknown>) => timesheetSetups.read(raw));
          if (existing.some((s: TimesheetSetupRow) => s.end_date === null || s.end_date >= start)) throw timesheetMemberHasSetup();
          const made: TimesheetSetupRow[] = [];
          for (const memberId of memberIds) {
            made.push(await timesheetSetups.insert(trx, {
              workspace_id: scope.workspaceId, member_id: memberId, approver_ids: approverIds, periodicity: kind, reminder_day: day, reminder_time: time,
              start_date: start, end_date: null, created_at: now, at: now, deleted_at: null,
            }));
          }
          return made;
        });
        return { setups: rows.map((s) => setupMessage(s, people)) };
      },

      async updateTimesheetSetup(req, ctx) {
        const scope = trackingScope(ctx);
        const change = req.setup ?? ({ approverIds: [] } as never);
        const current = await timesheetSetups.getLive(db, scope.workspaceId, req.setupId);
        if (!current) throw timesheetSetupNotFound();
        const people = await members(scope);
        const values: Partial<TimesheetSetupRow> = { at: clock.now() };
        if (change.approverIds.length > 0 || change.approverId !== undefined) values.approver_ids = checkedApprovers(change, people, [current.member_id]);
        if (change.reminderDay !== undefined) values.reminder_day = reminderDay(change.reminderDay);
        if (change.reminderTime !== undefined) values.reminder_time = reminderTime(change.reminderTime);
        if (change.endDate !== undefined) {
          if (change.endDate === "") values.end_date = null;
          else {
            const end = timesheetDate(change.endDate);
            checkEndDate(current, end);
            values.end_date = end;
          }
        }
        const row = await storage.change(async (trx) => {
          const existing = await timesheetSetups.getForChange(trx, scope.workspaceId, req.setupId);
          if (!existing || existing.deleted_at !== null) throw timesheetSetupNotFound();
          if (values.end_date === null && existing.end_date !== null) {
            // An open end again: no later setup of the member may follow it.
            const later = await timesheetSetups.query(trx, scope.workspaceId).where("member_id", idBinding(existing.member_id)).whereNull("deleted_at").whereNot("id", idBinding(existing.id)).where("start_date", ">", existing.start_date).first("id");
            if (later) throw timesheetMemberHasSetup();
          }
          return timesheetSetups.update(trx, existing, values);
        });
        return { setup: setupMessage(row, people) };
      },

      async deleteTimesheetSetup(req, ctx) {
        const scope = trackingScope(ctx);
        await storage.change(async (trx) => {
          const existing = await timesheetSetups.getForChange(trx, scope.workspaceId, req.setupId);
          if (!existing || existing.deleted_at !== null) throw timesheetSetupIdInvalid();
          const used = await timesheets.query(trx, scope.workspaceId).where("setup_id", idBinding(existing.id)).whereNot("status", "pending").first("id");
          if (used) throw timesheetSetupInUse();
          const now = clock.now();
          await timesheetSetups.update(trx, existing, { deleted_at: now, at: now });
        });
        return {};
      },

      async listTimesheets(req, ctx) {
        const scope = trackingScope(ctx);
        const memberIds = idList(req.memberIds);
        const approverIds = idList(req.approverIds);
        const setupIds = idList(req.timesheetSetupIds);
        const statuses = req.statuses.trim() === "" ? [] : req.statuses.split(",").map((s) => timesheetStatus(s));
        const before = req.before ? timesheetDate(req.before) : undefined;
        const after = req.after ? timesheetDate(req.after) : undefined;
        const order = (req.sortOrder || "asc").toLowerCase();
        if (order !== "asc" && order !== "desc") throw sortOrderInvalid();
        const field = req.sortField || "start_date";
        if (!["start_date", "member_name"].includes(field)) throw invalidValue("sort_field");
        const people = await members(scope);
        const setups = (await visibleSetups(scope))
          .filter((s) => memberIds.length === 0 || memberIds.includes(s.member_id))
          .filter((s) => approverIds.length === 0 || s.approver_ids.some((id) => approverIds.includes(id)))
          .filter((s) => setupIds.length === 0 || setupIds.includes(s.id));
        const stored = new Map((await storedTimesheets(db, scope.workspaceId, setups.map((s) => s.id))).map((t) => [`${t.setup_id}/${t.start_date}`, t]));
        const all: { setup: TimesheetSetupRow; period: Period; stored?: TimesheetRow; start: string; name: string }[] = [];
        for (const setup of setups) {
          const name = (people.get(setup.member_id)?.fullname ?? "").toLowerCase();
          for (const period of begunPeriods(setup, today(clock.now(), people.get(setup.member_id)?.timezone ?? "UTC"))) {
            const t = stored.get(`${setup.id}/${period.start}`);
            if (statuses.length > 0 && !statuses.includes(t?.status ?? "pending")) continue;
            if (before && !(period.start < before)) continue;
            if (after && !(period.start > after)) continue;
            all.push({ setup, period, stored: t, start: period.start, name });
          }
        }
        const sign = order === "desc" ? -1 : 1;
        all.sort((a, b) => sign * (field === "member_name" ? (a.name < b.name ? -1 : a.name > b.name ? 1 : byStart(a, b)) : byStart(a, b) || compareIds(a.setup.id, b.setup.id)));
        const perPage = req.perPage === undefined || req.perPage <= 0n || req.perPage > BigInt(MAX_PER_PAGE) ? DEFAULT_PER_PAGE : Number(req.perPage);
        const page = req.page === undefined || req.page <= 0n ? 1 : Number(req.page);
        const slice = all.slice((page - 1) * perPage, page * perPage);
        return {
          data: slice.map((x) => timesheetMessage(x.setup, x.period, x.stored, people)),
          page: BigInt(page),
          perPage: BigInt(perPage),
          totalCount: BigInt(all.length),
        };
      },

      async updateTimesheets(req, ctx) {
        const scope = trackingScope(ctx);
        const people = await members(scope);
        const named = [];
        for (const change of namedChanges(req.timesheets ? toJson(ValueSchema, req.timesheets) : undefined)) {
          named.push({ ...(await namedPeriod(scope, change.setupId, change.startDate, people)), change: { status: change.status, rejectionComment: change.rejectionComment } as TimesheetChange });
        }
        const rows = await changeTimesheets(scope, named);
        return { timesheets: named.map(({ setup, period }, i) => timesheetMessage(setup, period, rows[i], people)) };
      },

      async getTimesheetHours(req, ctx) {
        const scope = trackingScope(ctx);
        const people = await members(scope);
        const hours = [];
        for (const key of namedChanges(req.timesheets ? toJson(ValueSchema, req.timesheets) : undefined)) {
          const setup = await setupFor(scope, key.setupId, timesheetInvalidId);
          const period = periodStartingOn(setup, key.startDate);
          const entries = await periodEntries(setup, period, people);
          const total = entries.filter((e) => e.duration >= 0).reduce((sum, e) => sum + e.duration, 0);
          hours.push({ timesheetSetupId: setup.id, startDate: period.start, totalSeconds: BigInt(total), workingHoursInMinutes: workingMinutes(period) });
        }
        return { hours };
      },

      async updateTimesheet(req, ctx) {
        const scope = trackingScope(ctx);
        const people = await members(scope);
        const change = req.change ?? ({} as TimesheetChange);
        const named = await namedPeriod(scope, req.setupId, req.startDate, people);
        const [row] = await changeTimesheets(scope, [{ ...named, change }]);
        return { timesheet: timesheetMessage(named.setup, named.period, row, people) };
      },

      async listTimesheetTimeEntries(req, ctx) {
        const scope = trackingScope(ctx);
        if (rowId(req.setupId) === undefined) throw timesheetInvalidId();
        const setup = await setupFor(scope, req.setupId, timesheetInvalidId);
        const period = periodStartingOn(setup, req.startDate);
        const people = await members(scope);
        return { timeEntries: await entryMessages(db, await periodEntries(setup, period, people)) };
      },

      async listMyTimesheets(_req, ctx) {
        const user = trackingUserScope(ctx);
        const me = user.userId;
        const profile = await identity.getUserProfile({ userId: user.userId });
        const day = today(clock.now(), profile.timezone);
        const out = [];
        for (const workspace of await user.memberships()) {
          const setups = (await liveSetups(db, workspace)).filter((s) => s.member_id === me);
          const stored = new Map((await storedTimesheets(db, workspace, setups.map((s) => s.id))).map((t) => [`${t.setup_id}/${t.start_date}`, t]));
          for (const setup of setups) {
            for (const period of begunPeriods(setup, day)) {
              const t = stored.get(`${setup.id}/${period.start}`);
              out.push(create(MyTimesheetSchema, {
                timesheetId: t?.id,
                timesheetSetupId: setup.id,
                workspaceId: workspace,
                startDate: period.start,
                status: t?.status ?? "pending",
                submittedAt: ts(t?.submitted_at ?? null),
                approvedOrRejectedAt: ts(t?.approved_or_rejected_at ?? null),
                approvedOrRejectedId: t?.approved_or_rejected_id ?? undefined,
                rejectionComment: t?.rejection_comment ?? undefined,
                reminderSentAt: ts(t?.reminder_sent_at ?? null),
                createdAt: ts(t?.created_at ?? null),
                updatedAt: ts(t?.at ?? null),
                timezone: profile.timezone,
                workingHoursInMinutes: workingMinutes(period),
              }));
            }
          }
        }
        return { timesheets: out };
      },
    });
}

