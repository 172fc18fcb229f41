import { create } from "@bufbuild/protobuf";
import { ProjectGroupSchema, type ProjectGroup } from "../../../gen/tracking/v1/project_groups_pb.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { Emit } from "../../../lib/storage.js";
import type { Actor } from "../project-users/changes.js";
import { projectGroups, type ProjectGroupRow } from "./store.js";

export function projectGroupMessage(row: ProjectGroupRow): ProjectGroup {
  return create(ProjectGroupSchema, { id: row.id, groupId: row.group_id, pid: row.project_id, wid: row.workspace_id });
}

export const projectGroupEvent = (action: EntityAction, row: ProjectGroupRow, actor: Actor) =>
  entityEvent({ entity: "project_group", action, schema: ProjectGroupSchema, message: projectGroupMessage(row), workspaceId: actor.workspaceId, userId: actor.userId });

/** Removes every group of a project, with their events (what deleting a project does; the projects side calls it). */
export async function deleteProjectGroupsOf(trx: Knex.Transaction, emit: Emit, actor: Actor, projectId: bigint): Promise<void> {
  const rows = await projectGroups.query(trx, actor.workspaceId).where("project_id", idBinding(projectId)).forUpdate();
  for (const raw of rows) {
    const row = projectGroups.read(raw);
    await projectGroups.delete(trx, row);
    await emit(projectGroupEvent("deleted", row, actor));
  }
}
