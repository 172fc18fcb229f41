import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { applyEach, parseIdList, parsePatchOperations } from "../../../lib/bulk-patch.js";
import { TaskService, type TaskInput } from "../../../gen/tracking/v1/tasks_pb.js";
import type { Knex } from "../../../lib/db.js";
import { findableId, idBinding } from "../../../lib/ids.js";
import { likePattern } from "../../../lib/scoped-table.js";
import type { ResourceKit } from "../../../lib/resource-kit.js";
import type { Emit } from "../../../lib/storage.js";
import { type TrackingScope, trackingScope } from "../scope.js";
import { canSee, checkMayManage, visibleTo } from "../projects/access.js";
import { INVALID_TASK_IDS, archivedProjectTasks, invalidProject, invalidTask, invalidUser, nameTaken, taskNameEmpty } from "../errors.js";
import { activeFilter } from "../projects/rules.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { DEFAULT_TASKS_PER_PAGE, MAX_PATCH_TASKS, MAX_TASKS_PER_PAGE, dayBoundary, taskName, taskSortOf } from "./rules.js";
import { TASK_PATCH_PATHS, editOfTaskPatch } from "./patch.js";
import { tasks, type TaskRow } from "./store.js";
import { taskEvent, taskMessages } from "./view.js";

export function taskHandlers({ storage, clock, identity }: ResourceKit) {
  const { db } = storage;

  /** The live project of the path that the caller sees (400 "Invalid project_id" otherwise). */
  async function projectOf(q: Knex, scope: TrackingScope, projectId: bigint): Promise<ProjectRow> {
    const project = await projects.getLive(q, scope.workspaceId, projectId);
    if (!project || !(await canSee(q, scope.viewer, project))) throw invalidProject();
    return project;
  }

  /** The project of a change of its tasks: active, and the caller an admin or its manager. */
  async function changeableProject(trx: Knex.Transaction, scope: TrackingScope, projectId: bigint): Promise<ProjectRow> {
    const project = await projectOf(trx, scope, projectId);
    await checkMayManage(trx, scope, project.id);
    if (!project.active) throw archivedProjectTasks();
    return project;
  }

  /** A live task of the project, locked when in a change. */
  async function taskOf(q: Knex, scope: TrackingScope, project: ProjectRow, taskId: bigint, lock: boolean): Promise<TaskRow> {
    const task = lock ? await tasks.getForChange(q as Knex.Transaction, scope.workspaceId, taskId) : await tasks.get(q, scope.workspaceId, taskId);
    if (!task || task.server_deleted_at || task.project_id !== project.id) throw invalidTask();
    return task;
  }

  /** The assignee must be a member of the workspace. */
  async function checkAssignee(scope: TrackingScope, userId: bigint | undefined): Promise<void> {
    if (userId === undefined || userId === 0n) return;
    const answer = await identity.listWorkspaceMembers({ workspaceId: scope.workspaceId });
    if (!answer.members.some((m) => m.userId === userId)) throw invalidUser();
  }

  async function checkNameFree(trx: Knex.Transaction, scope: TrackingScope, projectId: bigint, sortName: string, except?: bigint): Promise<void> {
    const q = tasks.query(trx, scope.workspaceId).where({ project_id: projectId, sort_name: sortName }).whereNull("server_deleted_at");
    if (except !== undefined) q.andWhereNot("id", idBinding(except));
    if (await q.first("id")) throw nameTaken();
  }

  function changesOf(input: Partial<TaskInput>): Partial<TaskRow> {
    const out: Partial<TaskRow> = {};
    if (input.name !== undefined) {
      out.name = taskName(input.name);
      out.sort_name = out.name.toLowerCase();
    }
    if (input.active !== undefined) out.active = input.active;
    if (input.estimatedSeconds !== undefined) out.estimated_seconds = input.estimatedSeconds === 0n ? null : Number(input.estimatedSeconds);
    if (input.userId !== undefined) out.user_id = input.userId === 0n ? null : input.userId;
    return out;
  }

  /** Changes one live task of the project with the body's (or the operations') fields, in the caller's change. */
  async function changeTask(trx: Knex.Transaction, emit: Emit, scope: TrackingScope, projectId: bigint, taskId: bigint, changes: Partial<TaskRow>): Promise<TaskRow> {
    const project = await changeableProject(trx, scope, projectId);
    const existing = await taskOf(trx, scope, project, taskId, true);
    if (changes.sort_name !== undefined) await checkNameFree(trx, scope, project.id, changes.sort_name, existing.id);
    const updated = await tasks.update(trx, existing, { ...changes, at: clock.now() });
    await emit(await taskEvent(trx, "updated", updated, scope));
    return updated;
  }

  /** The page of a workspace list (`GET .../tasks` and `.../tasks/basic`) with its envelope. */
  async function taskPage(q: Knex.QueryBuilder, req: { page?: bigint; perPage?: bigint; sortField: string; sortOrder: string }) {
    const sort = taskSortOf(req.sortField, req.sortOrder);
    const page = req.page === undefined || req.page === 0n ? 1 : Number(req.page);
    const perPage = req.perPage === undefined || req.perPage === 0n ? DEFAULT_TASKS_PER_PAGE : Math.min(Number(req.perPage), MAX_TASKS_PER_PAGE);
    const [{ n }] = await q.clone().count({ n: "*" });
    const raws = await q
      .orderBy(sort.column, sort.order.toLowerCase() as "asc" | "desc")
      .orderBy("id", sort.order.toLowerCase() as "asc" | "desc")
      .offset((page - 1) * perPage)
      .limit(perPage);
    return {
      data: await taskMessages(db, raws.map((raw: Record<string, unknown>) => tasks.read(raw))),
      page: BigInt(page),
      perPage: BigInt(perPage),
      sortField: sort.field,
      sortOrder: sort.order,
      totalCount: BigInt(Number(n)),
    };
  }

  /** The live tasks of the live projects the viewer sees. */
  function visibleTasks(scope: TrackingScope): Knex.QueryBuilder {
    const visible = visibleTo(db, projects.query(db, scope.workspaceId).whereNull("server_deleted_at"), scope.viewer).select("id");
    return tasks.query(db, scope.workspaceId).whereIn("project_id", visible);
  }

  async function answer(row: TaskRow) {
    return { task: (await taskMessages(db, [row]))[0] };
  }

  async function change(scope: TrackingScope, work: (trx: Knex.Transaction, emit: Emit) => Promise<TaskRow>) {
    return answer(await storage.change(work));
  }

  return (router: ConnectRouter) =>
    router.service(TaskService, {
      async listProjectTasks(req, ctx) {
        const scope = trackingScope(ctx);
        const project = await projectOf(db, scope, req.projectId);
        const rows = await tasks.list(db, scope.workspaceId, { where: { project_id: project.id, server_deleted_at: null } });
        return { tasks: await taskMessages(db, rows) };
      },

      async createTask(req, ctx) {
        const scope = trackingScope(ctx);
        const input: Partial<TaskInput> = req.task ?? {};
        if (input.name === undefined) throw taskNameEmpty();
        const changes = changesOf(input);
        await checkAssignee(scope, input.userId);
        return change(scope, async (trx, emit) => {
          const project = await changeableProject(trx, scope, req.projectId);
          await checkNameFree(trx, scope, project.id, changes.sort_name!);
          const now = clock.now();
          const created = await tasks.insert(trx, {
            workspace_id: scope.workspaceId,
            project_id: project.id,
            name: changes.name!,
            sort_name: changes.sort_name!,
            active: changes.active ?? true,
            // The reference: "if omitted, will use requester user ID".
            user_id: input.userId === undefined ? scope.userId : (changes.user_id ?? null),
            estimated_seconds: changes.estimated_seconds ?? null,
            rate: null,
            rate_last_updated: null,
            creator_id: scope.userId,
            created_at: now,
            at: now,
            server_deleted_at: null,
          });
          await emit(await taskEvent(trx, "created", created, scope));
          return created;
        });
      },

      async getTask(req, ctx) {
        const scope = trackingScope(ctx);
        const project = await projectOf(db, scope, req.projectId);
        return answer(await taskOf(db, scope, project, req.taskId, false));
      },

      async updateTask(req, ctx) {
        const scope = trackingScope(ctx);
        const input: Partial<TaskInput> = req.task ?? {};
        const changes = changesOf(input);
        await checkAssignee(scope, input.userId);
        return change(scope, (trx, emit) => changeTask(trx, emit, scope, req.projectId, req.taskId, changes));
      },

      async deleteTask(req, ctx) {
        const scope = trackingScope(ctx);
        await storage.change(async (trx, emit) => {
          const project = await changeableProject(trx, scope, req.projectId);
          const existing = await taskOf(trx, scope, project, req.taskId, true);
          const now = clock.now();
          const deleted = await tasks.update(trx, existing, { server_deleted_at: now, at: now });
          await emit(await taskEvent(trx, "deleted", deleted, scope));
        });
        return {};
      },

      async listWorkspaceTasks(req, ctx) {
        const scope = trackingScope(ctx);
        taskSortOf(req.sortField, req.sortOrder);
        const active = activeFilter(req.active);
        const from = dayBoundary(req.startDate, "start_date", false);
        const to = dayBoundary(req.endDate, "end_date", true);
        const q = visibleTasks(scope);
        if (req.since !== undefined) q.where("at", ">=", new Date(Number(req.since) * 1000));
        else q.whereNull("server_deleted_at");
        if (active !== undefined) q.where("active", active);
        if (req.pid !== undefined) q.where("project_id", idBinding(findableId(req.pid)));
        if (from) q.where("at", ">=", from);
        if (to) q.where("at", "<", to);
        return taskPage(q, req);
      },

      async listWorkspaceTasksBasic(req, ctx) {
        const scope = trackingScope(ctx);
        taskSortOf(req.sortField, req.sortOrder);
        const active = activeFilter(req.active);
        const q = visibleTasks(scope).whereNull("server_deleted_at");
        if (active !== undefined) q.where("active", active);
        const search = req.search.trim().toLowerCase();
        if (search) q.andWhereRaw(`sort_name LIKE ? ESCAPE '!'`, [likePattern(search)]);
        return taskPage(q, req);
      },

      async patchTasks(req, ctx) {
        const scope = trackingScope(ctx);
        const ids = parseIdList(req.taskIds, { max: MAX_PATCH_TASKS, invalid: INVALID_TASK_IDS });
        const operations = parsePatchOperations(req.operations ? toJson(ValueSchema, req.operations) : undefined, TASK_PATCH_PATHS);
        const input = editOfTaskPatch(operations);
        // What holds for every task is refused as a whole: the project, who may change it, its state.
        const project = await projectOf(db, scope, req.projectId);
        await checkMayManage(db, scope, project.id);
        if (!project.active) throw archivedProjectTasks();
        await checkAssignee(scope, input.userId);
        const result = await applyEach(ids, async (id) => {
          // A bad name fails each task alike, in its own entry of `failure`.
          const changes = changesOf(input);
          await storage.change(async (trx, emit) => void (await changeTask(trx, emit, scope, req.projectId, id, changes)));
        });
        return result;
      },
    });
}
