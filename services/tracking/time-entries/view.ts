import { fromJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import { TimeEntrySchema, type TimeEntry } from "../../../gen/tracking/v1/time_entries_pb.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { timestampOf } from "../../../lib/timestamps.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { ScopedTable } from "../../../lib/scoped-table.js";
import { clients } from "../clients/store.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { tasks } from "../tasks/store.js";
import { liveTags, type TagRow } from "../tags/store.js";
import type { TimeEntryRow } from "./store.js";

/** What an answer shows beyond the entry itself. */
export interface EntryView {
  /** The meta fields: client_name, project_name/color/active/billable, task_name. */
  meta?: boolean;
  /** `shared_with`, naming users through this lookup (a workspace's members: id to name). */
  sharing?: (workspace: bigint) => Promise<Map<bigint, string>>;
}

interface Related {
  tags: Map<bigint, TagRow>;
  projects: Map<bigint, ProjectRow>;
  clients: Map<bigint, string>;
  tasks: Map<bigint, string>;
  names?: Map<bigint, string>;
}

const byId = <T extends { id: bigint }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));

/** A workspace's rows of `table` among `ids`. */
async function rowsOf<Row extends { id: bigint }>(table: ScopedTable<Row>, db: Knex, workspace: bigint, wanted: bigint[]): Promise<Row[]> {
  if (wanted.length === 0) return [];
  return (await table.query(db, workspace).whereIn("id", wanted.map(idBinding))).map((raw: Record<string, unknown>) => table.read(raw));
}
const ids = (values: (bigint | null)[]) => [...new Set(values.filter((v): v is bigint => v !== null))];

/** Whether sharing is asked for and some entry is shared: then the members' names are read. */
const namesShared = (rows: TimeEntryRow[], view: EntryView) => view.sharing !== undefined && rows.some((r) => r.shared_with_user_ids.length > 0);

/** What one workspace's entries refer to: live tags always, the meta entities when asked. */
async function related(db: Knex, workspace: bigint, rows: TimeEntryRow[], view: EntryView): Promise<Related> {
  const out: Related = { tags: byId(await liveTags(db, workspace, ids(rows.flatMap((r) => r.tag_ids)))), projects: new Map(), clients: new Map(), tasks: new Map() };
  if (view.meta) {
    const found = await rowsOf(projects, db, workspace, ids(rows.map((r) => r.project_id)));
    out.projects = byId(found);
    out.clients = new Map((await rowsOf(clients, db, workspace, ids(found.map((p) => p.client_id)))).map((c) => [c.id, c.name]));
    out.tasks = new Map((await rowsOf(tasks, db, workspace, ids(rows.map((r) => r.task_id)))).map((t) => [t.id, t.name]));
  }
  if (namesShared(rows, view)) out.names = await view.sharing!(workspace);
  return out;
}

const NONE = { case: undefined } as const;

function entryMessage(row: TimeEntryRow, rel: Related, view: EntryView): TimeEntry {
  // Most entries have no tags: no lists are filtered or mapped for them.
  const live = row.tag_ids.length === 0 ? [] : row.tag_ids.filter((id) => rel.tags.has(id));
  const workspaceId = row.workspace_id;
  const userId = row.user_id;
  // A literal of every field (lists of thousands of entries are answered): what create() would make.
  const entry: TimeEntry = {
    $typeName: "tracking.v1.TimeEntry",
    id: row.id,
    workspaceId,
    userId,
    projectId: row.project_id ?? undefined,
    taskId: row.task_id ?? undefined,
    billable: row.billable,
    start: timestampOf(row.start, true),
    stop: row.stop ? timestampOf(row.stop, true) : undefined,
    duration: BigInt(row.duration),
    description: row.description ?? undefined,
    tags: live.length === 0 ? [] : live.map((id) => rel.tags.get(id)!.name),
    tagIds: live,
    duronly: true,
    at: timestampOf(row.at),
    serverDeletedAt: row.server_deleted_at ? timestampOf(row.server_deleted_at) : undefined,
    permissions: undefined,
    wid: workspaceId,
    uid: userId,
    pidSet: row.project_id === null ? NONE : { case: "pid", value: row.project_id },
    tidSet: row.task_id === null ? NONE : { case: "tid", value: row.task_id },
    sharedWithSet: NONE,
    clientNameSet: NONE,
    projectNameSet: NONE,
    projectColorSet: NONE,
    projectActiveSet: NONE,
    projectBillableSet: NONE,
    taskNameSet: NONE,
  };
  if (view.sharing) {
    // A JSON value: its ids are JSON numbers, as the API writes them.
    const shared = row.shared_with_user_ids.map((id) => ({ accepted: false, user_id: Number(id), user_name: rel.names?.get(id) ?? "" }));
    entry.sharedWithSet = { case: "sharedWith", value: fromJson(ListValueSchema, shared) };
  }
  if (view.meta) {
    const project = row.project_id === null ? undefined : rel.projects.get(row.project_id);
    if (project) {
      entry.projectNameSet = { case: "projectName", value: project.name };
      entry.projectColorSet = { case: "projectColor", value: project.color };
      entry.projectActiveSet = { case: "projectActive", value: project.active };
      entry.projectBillableSet = { case: "projectBillable", value: project.billable ?? false };
      const client = project.client_id === null ? undefined : rel.clients.get(project.client_id);
      if (client !== undefined) entry.clientNameSet = { case: "clientName", value: client };
    }
    const task = row.task_id === null ? undefined : rel.tasks.get(row.task_id);
    if (task !== undefined) entry.taskNameSet = { case: "taskName", value: task };
  }
  return entry;
}

/** What entries without tags refer to when neither meta fields nor sharing are asked for: nothing. */
const NOTHING_RELATED: Related = { tags: new Map(), projects: new Map(), clients: new Map(), tasks: new Map() };

/** The entries as the API answers them (in the order given), each workspace's references read once. */
export async function entryMessages(db: Knex, rows: TimeEntryRow[], view: EntryView = {}): Promise<TimeEntry[]> {
  // The common answer (a running timer, a few untagged entries) reads nothing more.
  const refers = view.meta || namesShared(rows, view) || rows.some((r) => r.tag_ids.length > 0);
  if (!refers) return rows.map((row) => entryMessage(row, NOTHING_RELATED, view));
  const byWorkspace = new Map<bigint, Related>();
  for (const workspace of new Set(rows.map((r) => r.workspace_id))) {
    byWorkspace.set(workspace, await related(db, workspace, rows.filter((r) => r.workspace_id === workspace), view));
  }
  return rows.map((row) => entryMessage(row, byWorkspace.get(row.workspace_id)!, view));
}

/** The event of an entry's change, carrying the entry as it stands (with its tag names). */
export async function entryEvent(db: Knex, action: EntityAction, row: TimeEntryRow, userId: bigint) {
  return (await entryEvents(db, action, [row], () => userId))[0];
}

/** An entry as a change left it: its row, and the entry as its event carried it (the plain view's answer). */
export interface SavedEntry {
  row: TimeEntryRow;
  message: TimeEntry;
}

/** The change's entry in `view`: the event's message when the view asks nothing more, so the entry is made once per request. */
export async function savedEntryMessage(db: Knex, saved: SavedEntry, view: EntryView): Promise<TimeEntry> {
  if (!view.meta && !view.sharing) return saved.message;
  return (await entryMessages(db, [saved.row], view))[0];
}

/** The events of many entries' change (each by `userOf` it), their answers read together. */
export async function entryEvents(db: Knex, action: EntityAction, rows: TimeEntryRow[], userOf: (row: TimeEntryRow) => bigint) {
  const messages = await entryMessages(db, rows);
  return rows.map((row, i) => entityEvent({ entity: "time_entry", action, schema: TimeEntrySchema, message: messages[i], workspaceId: row.workspace_id, userId: userOf(row) }));
}
