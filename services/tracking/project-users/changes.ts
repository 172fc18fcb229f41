import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ProjectUserSchema, type ProjectUser } from "../../../gen/tracking/v1/project_users_pb.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { Emit } from "../../../lib/storage.js";
import { projectUsers, type ProjectUserRow } from "./store.js";

/** Who changes project users where (a WorkspaceScope has these). */
export interface Actor {
  workspaceId: bigint;
  userId: bigint;
}

/** What of the rates the reader may see (all of it for events). */
export interface RateVisibility {
  rate: boolean;
  labourCost: boolean;
}

const ALL_RATES: RateVisibility = { rate: true, labourCost: true };

export function projectUserMessage(row: ProjectUserRow, show: RateVisibility = ALL_RATES): ProjectUser {
  return create(ProjectUserSchema, {
    id: row.id,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    userId: row.user_id,
    manager: row.manager,
    rate: show.rate ? (row.rate ?? undefined) : undefined,
    rateLastUpdated: show.rate && row.rate_last_updated ? timestampFromDate(row.rate_last_updated) : undefined,
    labourCost: show.labourCost && row.labour_cost !== null ? BigInt(Math.round(row.labour_cost)) : undefined,
    at: timestampFromDate(row.at),
  });
}

export const projectUserEvent = (action: EntityAction, row: ProjectUserRow, actor: Actor) =>
  entityEvent({
    entity: "project_user",
    action,
    schema: ProjectUserSchema,
    message: projectUserMessage(row) as ProjectUser & { id: bigint },
    workspaceId: actor.workspaceId,
    userId: actor.userId,
  });

/**
 * Removes every project user of a project, with their events (what deleting a project does to
 * its members; the projects side calls it in its own change).
 */
export async function deleteProjectUsersOf(trx: Knex.Transaction, emit: Emit, actor: Actor, projectId: bigint): Promise<void> {
  const rows = await projectUsers.query(trx, actor.workspaceId).where("project_id", idBinding(projectId)).forUpdate();
  for (const raw of rows) {
    const row = projectUsers.read(raw);
    await projectUsers.delete(trx, row);
    await emit(projectUserEvent("deleted", row, actor));
  }
}
