import type { Knex } from "../../../lib/db.js";
import type { Emit } from "../../../lib/storage.js";
import type { TrackingScope } from "../scope.js";
import { invalidProject, invalidTask, invalidUser, otherUsersAdminsOnly, sharedWithInvalid, startNotGiven, tagIdsInvalid, taskNotOfProject } from "../errors.js";
import { canSee } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { tasks } from "../tasks/store.js";
import { insertTag } from "../tags/changes.js";
import { checkMayManageTags, tagName } from "../tags/rules.js";
import { liveTags, liveTagsByName } from "../tags/store.js";
import { applyTagAction, checkConstraints, checkUnlocked, stoppedAt, timing, updatedTiming, type TagAction, type Timing } from "./rules.js";
import { runningEntryForChange, timeEntries, type TimeEntryRow } from "./store.js";
import { entryEvent, type SavedEntry } from "./view.js";

/** One change of an entry's tags: ids and names (a missing name is created unless the action deletes). */
export interface TagStep {
  action: TagAction;
  ids?: bigint[];
  names?: string[];
}

/** What a create, update or bulk patch asks of an entry; an absent field stays as it is. */
export interface EntryChange {
  start?: Date;
  stop?: Date;
  duration?: number;
  description?: string | null;
  billable?: boolean;
  /** null: no project (and so no task). */
  projectId?: bigint | null;
  /** null: no task. */
  taskId?: bigint | null;
  tags?: TagStep[];
  sharedWith?: bigint[];
  userId?: bigint;
  createdWith?: string;
}

/** Where a change happens: its transaction, events, the caller's scope, the time, the workspace's members. */
export interface ChangeContext {
  trx: Knex.Transaction;
  emit: Emit;
  /** The caller's scope, with them as a viewer of the workspace's projects. */
  scope: TrackingScope;
  now: Date;
  /** The workspace's member ids, asked of the accounts service before the change, only when it names users (else empty). */
  members: Set<bigint>;
}

/** The entry's owner after the change: the caller, or (admins only) another member of the workspace. */
async function owner(cx: ChangeContext, existing: TimeEntryRow | undefined, change: EntryChange): Promise<bigint> {
  const caller = cx.scope.userId;
  const current = existing?.user_id ?? caller;
  if (change.userId === undefined || change.userId === current) return current;
  if (!cx.scope.admin) throw otherUsersAdminsOnly();
  if (!cx.members.has(change.userId)) throw invalidUser();
  return change.userId;
}

/**
 * Project and task after the change: both live in the workspace, the task in the project (a task
 * alone brings its project). A project the change names or brings is one the caller may see: a
 * private project of which they are no member is, to them, no project at all.
 */
async function projectAndTask(cx: ChangeContext, existing: TimeEntryRow | undefined, change: EntryChange) {
  if (change.projectId !== undefined && change.projectId !== null) await checkVisibleProject(cx, change.projectId);
  const result = await taskOf(cx, existing, change, change.projectId !== undefined ? change.projectId : (existing?.project_id ?? null));
  const brought = change.projectId === undefined && result.projectId !== null && result.projectId !== existing?.project_id;
  if (brought) await checkVisibleProject(cx, result.projectId!);
  return result;
}

async function checkVisibleProject(cx: ChangeContext, projectId: bigint): Promise<void> {
  const project = await projects.getLive(cx.trx, cx.scope.workspaceId, projectId);
  if (!project || !(await canSee(cx.trx, cx.scope.viewer, project))) throw invalidProject();
}

/** The task after the change, and the project it brings when the change names a task alone. */
async function taskOf(cx: ChangeContext, existing: TimeEntryRow | undefined, change: EntryChange, projectId: bigint | null) {
  let taskId: bigint | null;
  if (change.taskId !== undefined && change.taskId !== null) {
    const task = await tasks.getLive(cx.trx, cx.scope.workspaceId, change.taskId);
    if (!task) throw invalidTask();
    if (projectId === null && change.projectId === undefined) projectId = task.project_id;
    if (task.project_id !== projectId) throw taskNotOfProject();
    taskId = task.id;
  } else if (change.taskId === null || projectId === null) {
    taskId = null;
  } else {
    // A task of the project it had stays only while the project stays.
    taskId = existing && existing.project_id === projectId ? existing.task_id : null;
  }
  return { projectId, taskId };
}

/** The tags after the change: given ids must be live tags of the workspace; names are found or created. */
async function tagIds(cx: ChangeContext, existing: TimeEntryRow | undefined, steps: TagStep[]): Promise<bigint[]> {
  const ws = cx.scope.workspaceId;
  const kept = new Set(existing ? (await liveTags(cx.trx, ws, existing.tag_ids)).map((t) => t.id) : []);
  let ids = (existing?.tag_ids ?? []).filter((id) => kept.has(id));
  for (const step of steps) {
    const given = [...new Set(step.ids ?? [])];
    if (step.action !== "delete" && given.length) {
      const live = new Set((await liveTags(cx.trx, ws, given)).map((t) => t.id));
      if (given.some((id) => !live.has(id))) throw tagIdsInvalid();
    }
    const names = [...new Set((step.names ?? []).map(tagName))];
    if (names.length) {
      const found = await liveTagsByName(cx.trx, ws, names);
      const byName = new Map(found.map((t) => [t.name.toLowerCase(), t.id]));
      for (const name of names) {
        let id = byName.get(name.toLowerCase());
        if (id === undefined && step.action !== "delete") {
          checkMayManageTags(cx.scope);
          id = (await insertTag(cx.trx, cx.emit, cx.scope, name, cx.now)).id;
          byName.set(name.toLowerCase(), id);
        }
        if (id !== undefined) given.push(id);
      }
    }
    ids = applyTagAction(ids, step.action, given);
  }
  return ids;
}

async function sharedWith(cx: ChangeContext, existing: TimeEntryRow | undefined, given: bigint[] | undefined, ownerId: bigint): Promise<bigint[]> {
  if (given === undefined) return existing?.shared_with_user_ids ?? [];
  const ids = [...new Set(given)].filter((id) => id !== ownerId);
  if (ids.length === 0) return [];
  if (ids.some((id) => !cx.members.has(id))) throw sharedWithInvalid();
  return ids;
}

/** Stops the user's running entry (another than `keep`), at `at` or its own start if that is later. */
async function stopRunning(cx: ChangeContext, userId: bigint, keep: bigint | undefined, at: Date): Promise<void> {
  const running = await runningEntryForChange(cx.trx, userId);
  if (!running || running.id === keep) return;
  const times = stoppedAt(running, at);
  const row = await timeEntries.update(cx.trx, running, { ...times, running_user_id: null, at: cx.now });
  await cx.emit(await entryEvent(cx.trx, "updated", row, cx.scope.userId));
}

/**
 * Creates (no `existing`) or updates an entry with every body rule: owner, project and task,
 * tags (missing names created), sharing, times, the workspace's constraints; an entry that runs
 * after the change stops the owner's other running entry. Emits the entry's event.
 */
export async function saveEntry(cx: ChangeContext, existing: TimeEntryRow | undefined, change: EntryChange): Promise<SavedEntry> {
  const userId = await owner(cx, existing, change);
  const { projectId, taskId } = await projectAndTask(cx, existing, change);
  const tags = change.tags?.length ? await tagIds(cx, existing, change.tags) : (existing?.tag_ids ?? []);
  const description = change.description !== undefined ? change.description : (existing?.description ?? null);
  let times: Timing;
  if (existing) times = updatedTiming(existing, change);
  else if (change.start) times = timing(change.start, change.stop, change.duration);
  else throw startNotGiven();
  checkUnlocked(cx.scope, ...(existing ? [existing.start] : []), times.start);
  const fields = {
    user_id: userId,
    project_id: projectId,
    task_id: taskId,
    description,
    billable: change.billable ?? existing?.billable ?? false,
    ...times,
    tag_ids: tags,
    shared_with_user_ids: await sharedWith(cx, existing, change.sharedWith, userId),
    running_user_id: times.stop === null ? userId : null,
    at: cx.now,
  };
  checkConstraints(cx.scope.rules, fields);
  if (times.stop === null) await stopRunning(cx, userId, existing?.id, times.start);
  if (!existing) {
    const row = await timeEntries.insert(cx.trx, {
      ...fields,
      workspace_id: cx.scope.workspaceId,
      created_with: change.createdWith ?? "",
      created_at: cx.now,
      server_deleted_at: null,
    });
    return emitSaved(cx, "created", row);
  }
  return emitSaved(cx, "updated", await timeEntries.update(cx.trx, existing, fields));
}

/** Emits the entry's event; answers the entry with the message the event carried. */
async function emitSaved(cx: ChangeContext, action: "created" | "updated", row: TimeEntryRow): Promise<SavedEntry> {
  const event = await entryEvent(cx.trx, action, row, cx.scope.userId);
  await cx.emit(event);
  return { row, message: event.object.message };
}

/** Stops a running entry now (409 when it is stopped already). */
export async function stopEntry(cx: ChangeContext, existing: TimeEntryRow, alreadyStopped: () => Error): Promise<SavedEntry> {
  if (existing.stop !== null || existing.running_user_id === null) throw alreadyStopped();
  checkUnlocked(cx.scope, existing.start);
  return emitSaved(cx, "updated", await timeEntries.update(cx.trx, existing, { ...stoppedAt(existing, cx.now), running_user_id: null, at: cx.now }));
}

/** Marks an entry deleted (a running one stops running; `since` lists still show it). */
export async function deleteEntry(cx: ChangeContext, existing: TimeEntryRow): Promise<void> {
  checkUnlocked(cx.scope, existing.start);
  const row = await timeEntries.update(cx.trx, existing, { server_deleted_at: cx.now, at: cx.now, running_user_id: null });
  await cx.emit(await entryEvent(cx.trx, "deleted", row, cx.scope.userId));
}
