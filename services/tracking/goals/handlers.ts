import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { GoalSchema, GoalService, type Goal } from "../../../gen/tracking/v1/goals_pb.js";
import type { WorkspaceMember } from "../../../gen/accounts/v1/accounts_pb.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import { idBinding, readId, requireRowId } from "../../../lib/ids.js";
import { visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { liveTags } from "../tags/store.js";
import { tasks } from "../tasks/store.js";
import { timeEntries } from "../time-entries/store.js";
import { goalNotAccessible, goalNotDeletable, goalNotFound, goalResourcesDenied, goalTagsInvalid, teamGoalsDenied } from "../errors.js";
import { goalChanges, goalPage, goalProgress, goalSettings, progressFrom, type GoalSettings } from "./rules.js";
import { goals, type GoalRow } from "./store.js";

/** The calendar day of an instant in a time zone (UTC when the zone is unknown). */
function dayIn(at: Date, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone: timeZone || "UTC", year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
  } catch {
    return at.toISOString().slice(0, 10);
  }
}

/** Whether the caller sees the goal: their own, one they made, or any as an admin. */
const sees = (scope: TrackingScope, row: GoalRow) => scope.admin || row.user_id === scope.userId || row.creator_id === scope.userId;

/**
 * A workspace's goals. Each counts one member's stopped entries of the workspace (of its projects,
 * tasks and tags when it names some; billable ones only with `billable`), by the day they start in
 * that member's time zone; its progress is computed on every answer, never stored.
 */
export function goalHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  async function members(scope: TrackingScope): Promise<Map<bigint, WorkspaceMember>> {
    const res = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
    return new Map(res.members.map((m) => [m.userId, m]));
  }

  /** Seconds per day of the goal user's matching entries, from the day the progress needs. */
  async function trackedByDay(row: GoalRow, timeZone: string, today: string): Promise<Map<string, number>> {
    const from = progressFrom(row.recurrence, row.start_date, today);
    // A day ahead of the first day in any zone (zones run up to 14 hours either side of UTC).
    const since = new Date(Date.parse(`${from}T00:00:00Z`) - 86_400_000);
    const q = timeEntries.query(db, row.workspace_id)
      .where("user_id", idBinding(row.user_id))
      .whereNull("server_deleted_at")
      .whereNull("running_user_id")
      .where("start", ">=", since);
    if (row.project_ids.length > 0) q.whereIn("project_id", row.project_ids.map(idBinding));
    if (row.task_ids.length > 0) q.whereIn("task_id", row.task_ids.map(idBinding));
    if (row.billable) q.where("billable", true);
    const out = new Map<string, number>();
    for (const raw of await q) {
      const entry = timeEntries.read(raw);
      if (row.tag_ids.length > 0 && !entry.tag_ids.some((id) => row.tag_ids.includes(id))) continue;
      const day = dayIn(entry.start, timeZone);
      out.set(day, (out.get(day) ?? 0) + Math.max(entry.duration, 0));
    }
    return out;
  }

  async function goalMessage(row: GoalRow, people: Map<bigint, WorkspaceMember>): Promise<Goal> {
    const user = people.get(row.user_id);
    const timeZone = user?.timezone ?? "UTC";
    const today = dayIn(clock.now(), timeZone);
    const progress = goalProgress(row, await trackedByDay(row, timeZone, today), today, user?.beginningOfWeek ?? 1);
    return create(GoalSchema, {
      goalId: row.id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      userName: user?.fullname ?? "",
      creatorUserId: row.creator_id,
      creatorUserName: people.get(row.creator_id)?.fullname ?? "",
      name: row.name,
      icon: row.icon,
      comparison: row.comparison,
      recurrence: row.recurrence,
      targetSeconds: BigInt(row.target_seconds),
      billable: row.billable,
      projectIds: row.project_ids,
      taskIds: row.task_ids,
      tagIds: row.tag_ids,
      startDate: row.start_date,
      endDate: row.end_date ?? undefined,
      active: row.active,
      teamGoal: row.user_id !== row.creator_id,
      status: row.active ? progress.status : "archived",
      streak: progress.streak,
      currentRecurrenceStartDate: progress.current?.start,
      currentRecurrenceEndDate: progress.current?.end,
      currentRecurrenceTrackedSeconds: BigInt(progress.trackedSeconds),
      lastCompletedRecurrenceEndDate: progress.lastCompletedEnd ?? undefined,
      lastNotifiedAt: row.last_notified_at ? timestampFromDate(row.last_notified_at) : undefined,
    });
  }

  /** The projects, tasks and tags a new goal names, checked against what the caller sees in the workspace. */
  async function checkReferences(scope: TrackingScope, s: GoalSettings): Promise<void> {
    if (s.projectIds.length > 0) {
      const seen = await visibleTo(db, projects.query(db, scope.workspaceId).whereIn("id", s.projectIds.map(idBinding)).whereNull("server_deleted_at"), scope.viewer).select("id");
      if (seen.length !== s.projectIds.length) throw goalResourcesDenied();
    }
    if (s.taskIds.length > 0) {
      const found = await tasks.query(db, scope.workspaceId).whereIn("id", s.taskIds.map(idBinding)).whereNull("server_deleted_at").select("project_id");
      if (found.length !== s.taskIds.length) throw goalResourcesDenied();
      const projectIds = [...new Set<bigint>(found.map((r: { project_id: unknown }) => readId(r.project_id)))];
      const seen = await visibleTo(db, projects.query(db, scope.workspaceId).whereIn("id", projectIds.map(idBinding)), scope.viewer).select("id");
      if (seen.length !== projectIds.length) throw goalResourcesDenied();
    }
    if (s.tagIds.length > 0 && (await liveTags(db, scope.workspaceId, s.tagIds)).length !== s.tagIds.length) throw goalTagsInvalid();
  }

  async function visibleGoal(scope: TrackingScope, id: bigint): Promise<GoalRow | undefined> {
    const row = await goals.getLive(db, scope.workspaceId, id);
    return row && sees(scope, row) ? row : undefined;
  }

  return (router: ConnectRouter) =>
    router.service(GoalService, {
      async listGoals(req, ctx) {
        const scope = trackingScope(ctx);
        const q = goals.query(db, scope.workspaceId).whereNull("deleted_at").where("active", req.active ?? true);
        if (req.teamGoals) {
          // Goals made for others: all of the workspace's for admins.
          if (!scope.admin) throw teamGoalsDenied();
          q.whereRaw("user_id <> creator_id");
        } else q.where("user_id", idBinding(scope.userId));
        const { offset, limit } = goalPage(req.page, req.perPage);
        const rows: GoalRow[] = (await q.orderBy("id").offset(offset).limit(limit)).map((raw: Record<string, unknown>) => goals.read(raw));
        const people = rows.length > 0 ? await members(scope) : new Map<bigint, WorkspaceMember>();
        return { goals: await Promise.all(rows.map((row) => goalMessage(row, people))) };
      },

      async createGoal(req, ctx) {
        const scope = trackingScope(ctx);
        const people = await members(scope);
        const userId = req.goal?.userId === undefined || req.goal.userId === 0n ? scope.userId : req.goal.userId;
        const owner = people.get(userId);
        if (!owner || !owner.active) throw goalResourcesDenied();
        if (userId !== scope.userId && !scope.admin) throw teamGoalsDenied();
        const settings = goalSettings(req.goal ?? ({ projectIds: [], taskIds: [], tagIds: [] } as never), dayIn(clock.now(), owner.timezone));
        await checkReferences(scope, settings);
        const now = clock.now();
        const row = await storage.change((trx) =>
          goals.insert(trx, {
            workspace_id: scope.workspaceId,
            user_id: userId,
            creator_id: scope.userId,
            name: settings.name,
            icon: settings.icon,
            comparison: settings.comparison,
            recurrence: settings.recurrence,
            target_seconds: settings.targetSeconds,
            billable: settings.billable,
            project_ids: settings.projectIds,
            task_ids: settings.taskIds,
            tag_ids: settings.tagIds,
            start_date: settings.startDate,
            end_date: settings.endDate,
            active: true,
            last_notified_at: null,
            created_at: now,
            at: now,
            deleted_at: null,
          }),
        );
        return { goal: await goalMessage(row, people) };
      },

      async getGoal(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await visibleGoal(scope, req.goalId);
        if (!row) throw goalNotFound();
        return { goal: await goalMessage(row, await members(scope)) };
      },

      async updateGoal(req, ctx) {
        const scope = trackingScope(ctx);
        const found = await visibleGoal(scope, req.goalId);
        if (!found) throw goalNotAccessible();
        const changes = goalChanges(req.goal ?? ({} as never), found.start_date);
        const people = await members(scope);
        const row = await storage.change(async (trx) => {
          const existing = await goals.getForChange(trx, scope.workspaceId, req.goalId);
          if (!existing || existing.deleted_at !== null || !sees(scope, existing)) throw goalNotAccessible();
          return goals.update(trx, existing, { ...(changes as Partial<GoalRow>), at: clock.now() });
        });
        return { goal: await goalMessage(row, people) };
      },

      async deleteGoal(req, ctx) {
        const scope = trackingScope(ctx);
        requireRowId(req.goalId, goalNotDeletable);
        await storage.change(async (trx) => {
          const existing = await goals.getForChange(trx, scope.workspaceId, req.goalId);
          const mayDelete = existing && (existing.creator_id === scope.userId || scope.admin);
          if (!existing || existing.deleted_at !== null || !mayDelete) throw goalNotDeletable();
          const now = clock.now();
          await goals.update(trx, existing, { deleted_at: now, at: now });
        });
        return {};
      },
    });
}
