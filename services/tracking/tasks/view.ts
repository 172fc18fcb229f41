import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { TaskSchema, type Task } from "../../../gen/tracking/v1/tasks_pb.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { clients } from "../clients/store.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { trackedSeconds } from "../time-entries/project-link.js";
import type { TaskRow } from "./store.js";

/** What a task's answer shows of its project. */
interface ProjectInfo {
  project: ProjectRow | undefined;
  clientName: string | undefined;
}

export function taskMessage(row: TaskRow, info: ProjectInfo, trackedSeconds: number): Task {
  return create(TaskSchema, {
    id: row.id,
    name: row.name,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    userId: row.user_id ?? undefined,
    active: row.active,
    at: timestampFromDate(row.at),
    estimatedSeconds: row.estimated_seconds === null ? undefined : BigInt(row.estimated_seconds),
    // The reference: "tracked_seconds is in milliseconds".
    trackedSeconds: BigInt(trackedSeconds * 1000),
    rate: row.rate ?? undefined,
    rateLastUpdated: row.rate_last_updated ? timestampFromDate(row.rate_last_updated) : undefined,
    recurring: false,
    clientName: info.clientName,
    projectName: info.project?.name ?? "",
    projectColor: info.project?.color ?? "",
    projectBillable: info.project?.billable ?? undefined,
    serverDeletedAt: row.server_deleted_at ? timestampFromDate(row.server_deleted_at) : undefined,
  });
}

/** The tasks as answered, with their projects' name, color and client, and their tracked time. */
export async function taskMessages(db: Knex, rows: TaskRow[]): Promise<Task[]> {
  const byWorkspace = new Map<bigint, TaskRow[]>();
  for (const row of rows) byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), row]);
  const info = new Map<bigint, ProjectInfo>();
  const tracked = new Map<bigint, number>();
  for (const [workspace, list] of byWorkspace) {
    const projectRows: ProjectRow[] = (await projects.query(db, workspace).whereIn("id", [...new Set(list.map((t) => t.project_id))].map(idBinding))).map((raw: Record<string, unknown>) => projects.read(raw));
    const clientIds = [...new Set(projectRows.map((p) => p.client_id).filter((id): id is bigint => id !== null))];
    const names = new Map<bigint, string>();
    if (clientIds.length > 0) {
      for (const raw of await clients.query(db, workspace).whereIn("id", clientIds.map(idBinding))) {
        const client = clients.read(raw);
        names.set(client.id, client.name);
      }
    }
    for (const project of projectRows) info.set(project.id, { project, clientName: project.client_id === null ? undefined : names.get(project.client_id) });
    for (const [id, seconds] of await trackedSeconds(db, workspace, "task_id", list.map((t) => t.id))) tracked.set(id, seconds);
  }
  return rows.map((row) => taskMessage(row, info.get(row.project_id) ?? { project: undefined, clientName: undefined }, tracked.get(row.id) ?? 0));
}

/** The event of a task's change, carrying the task as it stands. */
export async function taskEvent(db: Knex, action: EntityAction, row: TaskRow, scope: Pick<WorkspaceScope, "workspaceId" | "userId">) {
  return (await taskEvents(db, action, [row], scope))[0];
}

/** The events of many tasks' change, their answers read together. */
export async function taskEvents(db: Knex, action: EntityAction, rows: TaskRow[], scope: Pick<WorkspaceScope, "workspaceId" | "userId">) {
  return (await taskMessages(db, rows)).map((message) => entityEvent({ entity: "task", action, schema: TaskSchema, message, workspaceId: scope.workspaceId, userId: scope.userId }));
}
