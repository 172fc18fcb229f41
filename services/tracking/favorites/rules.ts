import type { FavoritePayload } from "../../../gen/tracking/v1/favorites_pb.js";
import { compareIds, jsonIds } from "../../../lib/ids.js";
import { favoriteAttributesInvalid, favoriteConstraintsUnmet } from "../errors.js";

/** What a favorite holds, as the body gives it (ids still to be checked against the workspace). */
export interface FavoriteAttributes {
  workspaceId: bigint;
  description: string | null;
  projectId: bigint | null;
  taskId: bigint | null;
  billable: boolean;
  tagIds: bigint[];
}

const idOrNull = (id: bigint | undefined) => (id === undefined || id === 0n ? null : id);

/** A description is trimmed; a blank one is none. */
export function favoriteDescription(raw: string | undefined): string | null {
  const text = raw?.trim() ?? "";
  return text === "" ? null : text;
}

/** A favorite needs a workspace, and a description or a project (or a task, which names its project). */
export function favoriteAttributes(body: FavoritePayload): FavoriteAttributes {
  const workspaceId = idOrNull(body.workspaceId);
  if (workspaceId === null) throw favoriteAttributesInvalid("workspace_id is required");
  const attributes = {
    workspaceId,
    description: favoriteDescription(body.description),
    projectId: idOrNull(body.projectId),
    taskId: idOrNull(body.taskId),
    billable: body.billable ?? false,
    tagIds: [...new Set(body.tagIds)],
  };
  checkHasSubject(attributes);
  return attributes;
}

/** The favorite after a PUT: the body's fields over the stored ones (`0` clears project and task). */
export function changedAttributes(current: FavoriteAttributes, body: FavoritePayload): FavoriteAttributes {
  const next: FavoriteAttributes = {
    workspaceId: body.workspaceId ?? current.workspaceId,
    description: body.description === undefined ? current.description : favoriteDescription(body.description),
    projectId: body.projectId === undefined ? current.projectId : idOrNull(body.projectId),
    taskId: body.taskId === undefined ? current.taskId : idOrNull(body.taskId),
    billable: body.billable ?? current.billable,
    tagIds: body.tagIds.length > 0 ? [...new Set(body.tagIds)] : current.tagIds,
  };
  if (next.workspaceId !== current.workspaceId) {
    // Another workspace: what referred to the old one goes unless the body names it anew.
    if (body.projectId === undefined) next.projectId = null;
    if (body.taskId === undefined) next.taskId = null;
    if (body.tagIds.length === 0) next.tagIds = [];
  }
  if (next.workspaceId === 0n) throw favoriteAttributesInvalid("workspace_id is required");
  checkHasSubject(next);
  return next;
}

function checkHasSubject(a: FavoriteAttributes): void {
  if (a.description === null && a.projectId === null && a.taskId === null) throw favoriteConstraintsUnmet("a description or a project is required");
}

/** A candidate favorite drawn from the user's recent time entries. */
export interface EntryPattern {
  workspace_id: bigint;
  description: string | null;
  project_id: bigint | null;
  task_id: bigint | null;
  billable: boolean;
  tag_ids: bigint[];
  start: Date;
}

/** How many favorites a suggestion makes at most (the reference: 3). */
export const SUGGESTED_FAVORITES = 3;
/** How far back a suggestion looks for the user's entries. */
export const SUGGESTION_DAYS = 90;

/**
 * The user's most frequent kinds of entry (same workspace, description, project, task, billable
 * and tags), most frequent first, ties by the latest start; entries without description and
 * project make none.
 */
export function suggestedPatterns(entries: EntryPattern[], most = SUGGESTED_FAVORITES): EntryPattern[] {
  const groups = new Map<string, { pattern: EntryPattern; count: number; latest: number }>();
  for (const e of entries) {
    const description = favoriteDescription(e.description ?? undefined);
    if (description === null && e.project_id === null) continue;
    const tagIds = [...new Set(e.tag_ids)].sort(compareIds);
    const key = JSON.stringify([e.workspace_id, description, e.project_id, e.task_id, e.billable, tagIds], jsonIds);
    const group = groups.get(key);
    if (group) {
      group.count++;
      group.latest = Math.max(group.latest, e.start.getTime());
    } else groups.set(key, { pattern: { ...e, description, tag_ids: tagIds }, count: 1, latest: e.start.getTime() });
  }
  return [...groups.values()]
    .sort((a, b) => b.count - a.count || b.latest - a.latest)
    .slice(0, most)
    .map((g) => g.pattern);
}
