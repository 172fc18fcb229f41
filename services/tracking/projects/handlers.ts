import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ProjectService } from "../../../gen/tracking/v1/projects_pb.js";
import { applyEach, parseIdList, parsePatchOperations } from "../../../lib/bulk-patch.js";
import type { Knex } from "../../../lib/db.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import type { Emit } from "../../../lib/storage.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { INVALID_PROJECT_IDS, invalidProject } from "../errors.js";
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
import { MAX_PATCH_PROJECTS, checkMayCreate, dayOf, deletionMode } from "./rules.js";
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
    const existing = await projects.getForChange(trx, scope.workspace, id);
    if (!existing || existing.server_deleted_at) throw invalidProject();
    if (!(await canSee(trx, scope.viewer, existing))) throw invalidProject();
    await checkMayManage(trx, scope, existing.id);
    const now = clock.now();
    const changes = await projectChanges(trx, emit, scope, edit, existing, now);
    const updated = await projects.update(trx, existing, { ...changes, at: now });
    await emit(await projectEvent(trx, "updated", updated, scope, now));
    return updated;
  }

  return (router: ConnectRouter) =>
    router.service(ProjectService, {
      async listProjects(req, ctx) {
        const scope = trackingScope(ctx);
                const now = clock.now();
        const q = filterProjects(db, visibleTo(db, projects.query(db, scope.workspace), scope.viewer), req, scope.viewer, dayOf(now));
        const rows = await listRows(db, q, scope.workspace);
        return { projects: await projectMessages(db, rows, now) };
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
            workspace_id: scope.workspace,
            project_id: created.id,
            user_id: Number(scope.userId),
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
        const row = await projects.getLive(db, scope.workspace, req.projectId);
        if (!row || !(await canSee(db, scope.viewer, row))) throw invalidProject();
        return { project: (await projectMessages(db, [row], clock.now()))[0] };
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
                await changeRow(storage, projects, { scope: scope.workspace, id: req.projectId, missing: invalidProject }, async (existing, trx, emit) => {
          if (existing.server_deleted_at || !(await canSee(trx, scope.viewer, existing))) throw invalidProject();
          await checkMayManage(trx, scope, existing.id);
          await detachProjectEntries(trx, scope.workspace, existing.id, mode, now, emit);
          // The project's tasks go with it.
          const gone: TaskRow[] = [];
          for (const raw of await tasks.query(trx, scope.workspace).where("project_id", existing.id).whereNull("server_deleted_at").forUpdate()) {
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
                const result = await applyEach(ids, (id) => storage.change(async (trx, emit) => void (await changeProject(trx, emit, scope, BigInt(id), edit))));
        return { success: result.success.map(BigInt), failure: result.failure.map((f) => ({ id: BigInt(f.id), message: f.message })) };
      },
    });
}
