import { create } from "@bufbuild/protobuf";
import { ImportCountsSchema, ImportSchema, type Import } from "../../../gen/tracking/v1/imports_pb.js";
import type { DomainEvent } from "../../../lib/events.js";
import { timestampOf } from "../../../lib/timestamps.js";
import type { ImportJobRow, Tally } from "./store.js";

const countsMessage = (t: Tally) =>
  create(ImportCountsSchema, {
    clients: BigInt(t.clients),
    projects: BigInt(t.projects),
    tasks: BigInt(t.tasks),
    tags: BigInt(t.tags),
    projectUsers: BigInt(t.project_users),
    users: BigInt(t.users),
    timeEntries: BigInt(t.time_entries),
  });

export function importMessage(row: ImportJobRow): Import {
  return create(ImportSchema, {
    id: row.id,
    workspaceId: row.workspace_id,
    state: row.state,
    dryRun: row.dry_run,
    files: row.files,
    entriesTotal: BigInt(row.entries_total),
    entriesDone: BigInt(row.entries_done),
    created: countsMessage(row.counts.created),
    matched: countsMessage(row.counts.matched),
    skipped: countsMessage(row.counts.skipped),
    error: row.error ?? undefined,
    invited: row.invited,
    userId: row.user_id,
    createdAt: timestampOf(row.created_at),
    at: timestampOf(row.at),
    finishedAt: row.finished_at ? timestampOf(row.finished_at) : undefined,
  });
}

/**
 * The one event an import sends, when it has finished: the import with its counts. Not one event
 * per object it made (100,000 time entries would queue 100,000 deliveries ahead of every later
 * event of the workspace's subscriptions); a subscriber reads what changed through the API.
 */
export function importFinishedEvent(row: ImportJobRow): DomainEvent {
  return {
    workspaceId: String(row.workspace_id),
    entity: "import",
    action: "finished",
    userId: row.user_id,
    objectId: String(row.id),
    object: { schema: ImportSchema, message: importMessage(row) },
  };
}
