import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { FavoriteSchema, type Favorite } from "../../../gen/tracking/v1/favorites_pb.js";
import type { Knex } from "../../../lib/db.js";
import { clients } from "../clients/store.js";
import { canSee } from "../projects/access.js";
import { projects } from "../projects/store.js";
import type { TrackingScope } from "../scope.js";
import { tasks } from "../tasks/store.js";
import type { FavoriteRow } from "./store.js";

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

/** The favorite as the reference's models.Favorite, with the meta fields of the project and task the caller sees. */
export async function favoriteMessage(db: Knex, row: FavoriteRow, scope: TrackingScope | undefined): Promise<Favorite> {
  const message = create(FavoriteSchema, {
    favoriteId: row.id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    description: row.description ?? undefined,
    projectId: row.project_id ?? undefined,
    taskId: row.task_id ?? undefined,
    billable: row.billable,
    tagIds: row.tag_ids,
    public: row.public,
    rank: row.rank,
    createdAt: ts(row.created_at),
    deletedAt: ts(row.deleted_at),
    wasPublicAt: ts(row.was_public_at),
  });
  if (!scope || row.project_id === null) return message;
  const project = await projects.getLive(db, scope.workspaceId, row.project_id);
  if (!project || !(await canSee(db, scope.viewer, project))) return message;
  message.projectName = project.name;
  message.projectColor = project.color;
  message.projectActive = project.active;
  message.projectBillable = project.billable ?? false;
  if (project.client_id !== null) message.clientName = (await clients.get(db, scope.workspaceId, project.client_id))?.name;
  if (row.task_id !== null) message.taskName = (await tasks.getLive(db, scope.workspaceId, row.task_id))?.name;
  return message;
}
