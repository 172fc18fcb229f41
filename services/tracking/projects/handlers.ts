import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ProjectService } from "../../../gen/tracking/v1/projects_pb.js";
import { applyEach, parseIdList, parsePatchOperations } from "../../../lib/bulk-patch.js";
import type { Knex } from "../../../lib/db.js";
import { compareIds, idBinding, rowId } from "../../../lib/ids.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import type { Emit } from "../../../lib/storage.js";
import { type TrackingScope, trackingScope, trackingUserScope } from "../scope.js";
import { INVALID_PROJECT_IDS, invalidProject, periodsRangeInvalid, pinLimitFree, pinLimitPaid, projectNotAccessible } from "../errors.js";
import { deleteProjectGroupsOf } from "../project-groups/changes.js";
import { deleteProjectUsersOf, projectUserEvent } from "../project-users/changes.js";
import { projectUsers } from "../project-users/store.js";
import { tasks, type TaskRow } from "../tasks/store.js";
import { taskEvents } from "../tasks/view.js";
import { detachProjectEntries } from "../time-entries/project-link.js";
import { canSee, checkMayManage, visibleTo } from "./access.js";
import { newProjectRow, projectChanges, type ProjectEdit } from "./changes.js";
import { filterProjects, listRows } from "./list.js";
import { PROJECT_PATCH_PATHS, editOfPatch } from "./patch.js";
import { MAX_PATCH_PROJECTS, checkMayCreate, currentPeriod, dayOf, deletionMode, projectDate, recurringPeriods } from "./rules.js";
import { MAX_PINS, pinnedAmong, projectPins } from "./pins.js";
import { DEFAULT_MY_PROJECTS_PAGE, MAX_MY_PROJECTS_PAGE, earliestAndLatestEntry } from "./statistics.js";
import { projects, type ProjectRow } from "./store.js";
import { projectEvent, projectMessages } from "./view.js";

export function projectHandlers({ storage, clock }: ResourceKit) {
  const { db } = storage;

  /**
   * Changes one live project the caller may change (admins, the project's managers), in the
   * caller's change. The viewer came with the scope, before the change: no question to
   * the accounts service while the row is locked.
   */
  async function changeProject(trx: Knex.Transaction, emit: Emit, scope: TrackingScope, id: bigint, edit: ProjectEdit): Promise<ProjectRow> {
    const existing = await projects.getForChange(trx, scope.workspaceId, id);
    if (!existing || existing.server_deleted_at) throw invalidProject();
    if (!(await canSee(trx, scope.viewer, existing))) throw invalidProject();
    await checkMayManage(trx, scope, existing.id);
    const now = clock.now();
    const changes = await projectChanges(trx, emit, scope, edit, existing, now);
    const updated = await projects.update(trx, existing, { ...changes, at: now });
    await emit(await projectEvent(trx, "updated", updated, scope, now));
    return updated;
  }

  /** The caller's pins among the rows. */
  const pinsOf = (q: Knex, scope: TrackingScope, rows: ProjectRow[]) => pinnedAmong(q, scope.workspaceId, scope.userId, rows.map((r) => r.id));

  /** The live project of the path that the caller sees, or `missing`. */
  async function visibleProject(scope: TrackingScope, id: bigint, missing: () => Error): Promise<ProjectRow> {
    const row = await projects.getLive(db, scope.workspaceId, id);
    if (!row || !(await canSee(db, scope.viewer, row))) throw missing();
    return row;
  }

  return (router: ConnectRouter) =>
    router.service(ProjectService, {
      async listProjects(req, ctx) {
        const scope = trackingScope(ctx);
                const now = clock.now();
        const q = filterProjects(db, visibleTo(db, projects.query(db, scope.workspaceId), scope.viewer), req, scope.viewer, dayOf(now));
        const rows = await listRows(db, q, scope.workspaceId);
        return { projects: await projectMessages(db, rows, now, await pinsOf(db, scope, rows)) };
      },

      async createProject(req, ctx) {
        const scope = trackingScope(ctx);
        checkMayCreate(scope);
        const now = clock.now();
        const row = await storage.change(async (trx, emit) => {
          const changes = await projectChanges(trx, emit, scope, { input: req.project ?? {} }, undefined, now);
          const created = await projects.insert(trx, await newProjectRow(trx, scope, changes, now));
          // The creator manages the project (and so sees it when it is private).
          await emit(await projectEvent(trx, "created", created, scope, now));
          const manager = await projectUsers.insert(trx, {
            workspace_id: scope.workspaceId,
            project_id: created.id,
            user_id: scope.userId,
            manager: true,
            rate: null,
            labour_cost: null,
            rate_last_updated: null,
            labour_cost_last_updated: null,
            at: now,
          });
          await emit(projectUserEvent("created", manager, scope));
          return created;
        });
        return { project: (await projectMessages(db, [row], now))[0] };
      },

      async getProject(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await projects.getLive(db, scope.workspaceId, req.projectId);
        if (!row || !(await canSee(db, scope.viewer, row))) throw invalidProject();
        return { project: (await projectMessages(db, [row], clock.now(), await pinsOf(db, scope, [row])))[0] };
      },

      async updateProject(req, ctx) {
        const scope = trackingScope(ctx);
                const row = await storage.change((trx, emit) => changeProject(trx, emit, scope, req.projectId, { input: req.project ?? {} }));
        return { project: (await projectMessages(db, [row], clock.now()))[0] };
      },

      async deleteProject(req, ctx) {
        const scope = trackingScope(ctx);
        const mode = deletionMode(req.teDeletionMode);
        const now = clock.now();
                await changeRow(storage, projects, { scope: scope.workspaceId, id: req.projectId, missing: invalidProject }, async (existing, trx, emit) => {
          if (existing.server_deleted_at || !(await canSee(trx, scope.viewer, existing))) throw invalidProject();
          await checkMayManage(trx, scope, existing.id);
          await detachProjectEntries(trx, scope.workspaceId, existing.id, mode, now, emit);
          // The project's tasks go with it.
          const gone: TaskRow[] = [];
          for (const raw of await tasks.query(trx, scope.workspaceId).where("project_id", idBinding(existing.id)).whereNull("server_deleted_at").forUpdate()) {
            gone.push(await tasks.update(trx, tasks.read(raw), { server_deleted_at: now, at: now }));
          }
          for (const event of await taskEvents(trx, "deleted", gone, scope)) await emit(event);
          // So do its members and groups.
          await deleteProjectUsersOf(trx, emit, scope, existing.id);
          await deleteProjectGroupsOf(trx, emit, scope, existing.id);
          const deleted = await projects.update(trx, existing, { server_deleted_at: now, at: now });
          await emit(await projectEvent(trx, "deleted", deleted, scope, now));
        });
        return {};
      },

      async patchProjects(req, ctx) {
        const scope = trackingScope(ctx);
        const ids = parseIdList(req.projectIds, { max: MAX_PATCH_PROJECTS, invalid: INVALID_PROJECT_IDS });
        const operations = parsePatchOperations(req.operations ? toJson(ValueSchema, req.operations) : undefined, PROJECT_PATCH_PATHS);
        const edit = editOfPatch(operations);
                const result = await applyEach(ids, (id) => storage.change(async (trx, emit) => void (await changeProject(trx, emit, scope, id, edit))));
        return result;
      },

      async getProjectsBillableAmounts(req, ctx) {
        const scope = trackingScope(ctx);
        const ids = [...new Set(req.projectIds.map(rowId).filter((id): id is bigint => id !== undefined))];
        if (ids.length === 0) return { projects: [] };
        const q = visibleTo(db, projects.query(db, scope.workspaceId).whereIn("id", ids.map(idBinding)).whereNull("server_deleted_at"), scope.viewer);
        const rows = (await q.orderBy("sort_name").orderBy("id")).map((raw: Record<string, unknown>) => projects.read(raw));
        return { projects: await projectMessages(db, rows, clock.now(), await pinsOf(db, scope, rows)) };
      },

      async listProjectTemplates(req, ctx) {
        const scope = trackingScope(ctx);
        const q = visibleTo(db, projects.query(db, scope.workspaceId).where("template", true).whereNull("server_deleted_at"), scope.viewer);
        const rows = (await q.orderBy("sort_name").orderBy("id")).map((raw: Record<string, unknown>) => projects.read(raw));
        return { projects: await projectMessages(db, rows, clock.now(), await pinsOf(db, scope, rows)) };
      },

      async listProjectPeriods(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await visibleProject(scope, req.projectId, invalidProject);
        const from = req.startDate.trim() ? projectDate(req.startDate, "start_date") : undefined;
        const to = req.endDate.trim() ? projectDate(req.endDate, "end_date") : undefined;
        if (from && to && to < from) throw periodsRangeInvalid();
        if (!row.recurring || !row.recurring_parameters) return { periods: [] };
        // Without bounds, the period that holds today.
        const current = currentPeriod(row.recurring_parameters, dayOf(clock.now()));
        const periods = recurringPeriods(row.recurring_parameters, from ?? current.start, to ?? (from && from > current.end ? from : current.end));
        return { periods: periods.map((p) => ({ startDate: p.start, endDate: p.end })) };
      },

      async pinProject(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await visibleProject(scope, req.projectId, projectNotAccessible);
        const userId = scope.userId;
        await storage.change(async (trx) => {
          const mine = projectPins.query(trx, scope.workspaceId).where("user_id", idBinding(userId));
          const existing = await mine.clone().where("project_id", idBinding(row.id)).forUpdate().first("id");
          if (req.pin === false) {
            if (existing) await projectPins.query(trx, scope.workspaceId).where("id", existing.id).delete();
            return;
          }
          if (existing) return;
          const max = scope.premium ? MAX_PINS.paid : MAX_PINS.free;
          const [{ n }] = await mine.clone().count({ n: "*" });
          if (Number(n) >= max) throw scope.premium ? pinLimitPaid(max) : pinLimitFree();
          await projectPins.insert(trx, { workspace_id: scope.workspaceId, project_id: row.id, user_id: userId, created_at: clock.now() });
        }, { againOnDuplicate: { attempts: 3, giveUp: projectNotAccessible } });
        return {};
      },

      async getProjectStatistics(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await visibleProject(scope, req.projectId, invalidProject);
        const { earliest, latest } = await earliestAndLatestEntry(db, scope.workspaceId, row.id);
        return { earliestTimeEntry: earliest, latestTimeEntry: latest };
      },

      async listMyProjectsPaginated(req, ctx) {
        const user = trackingUserScope(ctx);
        const perPage = req.perPage === undefined || req.perPage === 0n ? DEFAULT_MY_PROJECTS_PAGE : Math.min(Number(req.perPage), MAX_MY_PROJECTS_PAGE);
        const since = req.since === undefined ? undefined : new Date(Number(req.since) * 1000);
        const from = req.startProjectId ?? 0n;
        const rows: ProjectRow[] = [];
        const pinned = new Set<bigint>();
        for (const scope of await user.workspaces()) {
          const q = visibleTo(db, projects.query(db, scope.workspaceId), scope.viewer).where("id", ">=", idBinding(from));
          if (since) q.where("at", ">=", since);
          else q.whereNull("server_deleted_at");
          const found = (await q.orderBy("id").limit(perPage)).map((raw: Record<string, unknown>) => projects.read(raw));
          rows.push(...found);
          for (const id of await pinsOf(db, scope, found)) pinned.add(id);
        }
        const page = rows.sort((a, b) => compareIds(a.id, b.id)).slice(0, perPage);
        return { projects: await projectMessages(db, page, clock.now(), pinned) };
      },
    });
}
