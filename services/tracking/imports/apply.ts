import { chunks } from "../../../lib/chunks.js";
import type { Knex } from "../../../lib/db.js";
import { idBinding, jsonIds, readId } from "../../../lib/ids.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { clients } from "../clients/store.js";
import { projects } from "../projects/store.js";
import { newProjectRow } from "../projects/changes.js";
import { tasks } from "../tasks/store.js";
import { liveName, tags } from "../tags/store.js";
import { projectUsers } from "../project-users/store.js";
import { projectGroups } from "../project-groups/store.js";
import { timeEntries, type TimeEntryRow } from "../time-entries/store.js";
import { runningDuration } from "../time-entries/rules.js";
import type { ProjectRow } from "../projects/store.js";
import { entryKey, nameKey, projectKey, taskKey, type ImportedEntry, type ImportedProject } from "./rules.js";
import type { ImportContent } from "./sources.js";
import { ORIGINS, originsAt, type ImportCounts } from "./store.js";

/**
 * Writes what an import's files hold into a workspace, matching by name (clients, tags; projects
 * within their client; tasks within their project) and by e-mail (people), never by the files'
 * ids. `write: false` (a dry run) reads the same and counts what it would create, writing nothing:
 * what it would create gets a stand-in negative id, which no stored row has.
 */

/** Who imports where, and who is who: members by address. */
export interface ImportTarget {
  /** The importing admin's scope: creator of what the import makes, owner of the entries of people without an account. */
  scope: WorkspaceScope;
  members: Map<string, bigint>;
  /** The organization's groups visible in the workspace, by the key of their name (those the files name created beforehand; a dry run's stand-ins negative). */
  groups: Map<string, bigint>;
  write: boolean;
  now: Date;
}

/** The workspace's ids of what the files name, by the keys names match on. */
export interface CatalogIds {
  clients: Map<string, bigint>;
  projects: Map<string, bigint>;
  tasks: Map<string, bigint>;
  tags: Map<string, bigint>;
}

/** A dry run's stand-in ids of what it would create. */
const standIns = () => {
  let next = 0n;
  return () => --next;
};

/** Matches or creates the clients, projects, tasks, tags and project users the files name, in one transaction (`db`). */
export async function writeCatalog(db: Knex, target: ImportTarget, content: ImportContent, counts: ImportCounts): Promise<CatalogIds> {
  const { scope, write, now } = target;
  const workspace = scope.workspaceId;
  const creator = scope.userId;
  const standIn = standIns();
  const ids: CatalogIds = { clients: new Map(), projects: new Map(), tasks: new Map(), tags: new Map() };
  const tally = (kind: keyof ImportCounts["created"], created: boolean) => counts[created ? "created" : "matched"][kind]++;

  for (const row of await clients.list(db, workspace)) if (!ids.clients.has(nameKey(row.name))) ids.clients.set(nameKey(row.name), row.id);
  const clientNames = new Map<bigint, string>([...ids.clients].map(([key, id]) => [id, key]));
  for (const [key, client] of content.clients) {
    const found = ids.clients.has(key);
    tally("clients", !found);
    if (found) continue;
    ids.clients.set(key, write ? (await clients.insert(db as Knex.Transaction, { workspace_id: workspace, name: client.name, notes: client.notes, archived: client.archived, creator_id: creator, created_at: now, at: now })).id : standIn());
  }

  const liveProjects = (await projects.query(db, workspace).whereNull("server_deleted_at")).map((raw: Record<string, unknown>) => projects.read(raw));
  for (const row of liveProjects) ids.projects.set(projectKey({ client: row.client_id === null ? null : (clientNames.get(row.client_id) ?? `#${row.client_id}`), name: row.name }), row.id);
  for (const [key, project] of content.projects) {
    const found = ids.projects.has(key);
    tally("projects", !found);
    if (found) continue;
    let id = standIn();
    if (write) {
      const clientId = project.client === null ? null : ids.clients.get(nameKey(project.client))!;
      const row = await newProjectRow(db as Knex.Transaction, scope, projectColumns(project, clientId, scope.premium, now), now);
      id = (await projects.insert(db as Knex.Transaction, row)).id;
    }
    ids.projects.set(key, id);
  }

  const projectKeys = new Map<bigint, string>([...ids.projects].map(([key, id]) => [id, key]));
  const liveTasks = (await tasks.query(db, workspace).whereNull("server_deleted_at")).map((raw: Record<string, unknown>) => tasks.read(raw));
  for (const row of liveTasks) {
    const project = projectKeys.get(row.project_id);
    if (project !== undefined) ids.tasks.set(`${project}\u0000${nameKey(row.name)}`, row.id);
  }
  for (const [key, task] of content.tasks) {
    const found = ids.tasks.has(key);
    tally("tasks", !found);
    if (found) continue;
    const projectId = ids.projects.get(projectKey(task.project))!;
    ids.tasks.set(
      key,
      write
        ? (
            await tasks.insert(db as Knex.Transaction, {
              workspace_id: workspace, project_id: projectId, name: task.name, sort_name: task.name.toLowerCase(), active: task.active,
              // An assignee without an account here is nobody (as for project users).
              user_id: task.assignee === null ? null : (target.members.get(task.assignee) ?? null),
              estimated_seconds: task.estimatedSeconds, ...rated(task.rate, now), creator_id: creator, created_at: now, at: now, server_deleted_at: null,
            })
          ).id
        : standIn(),
    );
  }

  for (const row of await tags.query(db, workspace).whereNull("deleted_at")) ids.tags.set(nameKey(String(row.name)), readId(row.id));
  for (const [key, name] of content.tags) {
    const found = ids.tags.has(key);
    tally("tags", !found);
    if (found) continue;
    ids.tags.set(key, write ? (await tags.insert(db as Knex.Transaction, { workspace_id: workspace, name, live_name: liveName(name), creator_id: creator, at: now, deleted_at: null })).id : standIn());
  }

  const existing = new Set((await projectUsers.list(db, workspace)).map((r) => `${r.project_id}:${r.user_id}`));
  for (const pu of content.projectUsers) {
    const userId = target.members.get(pu.email);
    const projectId = ids.projects.get(projectKey(pu.project))!;
    // Someone without an account here is on no project until they join.
    if (userId === undefined) {
      counts.skipped.project_users++;
      continue;
    }
    const key = `${projectId}:${userId}`;
    tally("project_users", !existing.has(key));
    if (existing.has(key)) continue;
    existing.add(key);
    if (write) {
      await projectUsers.insert(db as Knex.Transaction, {
        workspace_id: workspace, project_id: projectId, user_id: userId, manager: pu.manager, ...rated(pu.rate, now),
        labour_cost: pu.labourCost === null ? null : Math.round(pu.labourCost), labour_cost_last_updated: pu.labourCost === null ? null : now, at: now,
      });
    }
  }

  // Groups given projects: the groups themselves are the organization's (created beforehand, `target.groups`).
  const given = new Set((await projectGroups.list(db, workspace)).map((r) => `${r.project_id}:${r.group_id}`));
  for (const pg of content.projectGroups) {
    const projectId = ids.projects.get(projectKey(pg.project))!;
    const groupId = target.groups.get(nameKey(pg.group));
    // A group the importer could not create (no organization rights) gives no project.
    if (groupId === undefined) continue;
    const key = `${projectId}:${groupId}`;
    if (given.has(key)) continue;
    given.add(key);
    if (write) await projectGroups.insert(db as Knex.Transaction, { workspace_id: workspace, project_id: projectId, group_id: groupId, at: now });
  }
  return ids;
}

/** A rate as the entity's columns keep it: the amount, and when it was last set (now, the import). */
const rated = (rate: number | null, now: Date) => ({ rate, rate_last_updated: rate === null ? null : now });

/**
 * The columns of a project the files describe: what they say of it, else what a project created
 * through the API then gets; billable, rates, fee and currency only in a premium workspace (the
 * projects endpoints take them only there).
 */
function projectColumns(project: ImportedProject, clientId: bigint | null, premium: boolean, now: Date): Partial<ProjectRow> {
  const columns: Partial<ProjectRow> = {
    name: project.name, client_id: clientId, active: project.active, is_private: project.isPrivate,
    estimated_seconds: project.estimatedSeconds, end_date: project.endDate,
  };
  if (project.color) columns.color = project.color;
  if (project.startDate) columns.start_date = project.startDate;
  if (project.autoEstimates !== null) columns.auto_estimates = project.autoEstimates;
  if (premium) {
    if (project.billable !== null) columns.billable = project.billable;
    if (project.currency !== null) columns.currency = project.currency;
    Object.assign(columns, { fixed_fee: project.fixedFee, ...rated(project.rate, now) });
  }
  return columns;
}

/** The owner key of an entry (entryKey's first part): a member, or the address of someone without an account. */
const memberKey = (userId: bigint) => `u${userId}`;
const addressKey = (email: string) => `e${email}`;

/**
 * Writes a batch of entries in one transaction (`db`): an entry that is there already (same owner,
 * start, duration, description and project) is skipped, as is a running one whose owner already
 * has an entry running.
 */
export async function writeEntries(db: Knex, target: ImportTarget, ids: CatalogIds, batch: ImportedEntry[], counts: ImportCounts): Promise<void> {
  const { scope, write, now } = target;
  const workspace = scope.workspaceId;
  const importer = scope.userId;
  const starts = [...new Set(batch.map((e) => e.start.getTime()))].map((ms) => new Date(ms));
  const owners = [...new Set(batch.map((e) => target.members.get(e.email) ?? importer))];
  // The entries there already that a batch's entry can be: its owners', at its starts.
  const stored = await timeEntries.query(db, workspace).whereIn("start", starts).whereIn("user_id", owners.map(idBinding)).select("id", "user_id", "start", "duration", "description", "project_id", "server_deleted_at");
  const origins = owners.includes(importer) ? await originsAt(db, workspace, starts) : new Map<bigint, string>();
  const seen = new Set(
    stored.map((raw: Record<string, unknown>) => {
      const r = timeEntries.read(raw);
      return entryKey(origins.has(r.id) ? addressKey(origins.get(r.id)!) : memberKey(r.user_id), r.start, r.duration < 0 ? -1 : r.duration, r.description, r.project_id, r.server_deleted_at !== null);
    }),
  );
  const running = new Set<bigint>(batch.some((e) => e.duration < 0) ? (await db(timeEntries.table).whereIn("running_user_id", owners.map(idBinding)).select("running_user_id")).map((r: { running_user_id: unknown }) => readId(r.running_user_id)) : []);

  // Members' rows as the statement takes them (made at once: the batch holds one object a row).
  const plain: Record<string, unknown>[] = [];
  const adopted: { row: Omit<TimeEntryRow, "id">; email: string }[] = [];
  for (const entry of batch) {
    const member = target.members.get(entry.email);
    const userId = member ?? importer;
    const projectId = entry.project ? ids.projects.get(projectKey(entry.project))! : null;
    const key = entryKey(member !== undefined ? memberKey(member) : addressKey(entry.email), entry.start, entry.duration, entry.description, projectId, entry.deleted);
    // A deleted entry never runs (its stop is its start).
    const runs = entry.duration < 0 && !entry.deleted;
    if (seen.has(key) || (runs && running.has(userId))) {
      counts.skipped.time_entries++;
      continue;
    }
    // The same entry twice in the files is one entry.
    seen.add(key);
    if (runs) running.add(userId);
    counts.created.time_entries++;
    if (!write) continue;
    const row: Omit<TimeEntryRow, "id"> = {
      workspace_id: workspace,
      user_id: userId,
      project_id: projectId,
      task_id: entry.project && entry.task ? ids.tasks.get(taskKey(entry.project, entry.task))! : null,
      description: entry.description,
      billable: entry.billable,
      start: entry.start,
      stop: runs ? null : new Date(entry.start.getTime() + Math.max(entry.duration, 0) * 1000),
      duration: runs ? runningDuration(entry.start) : Math.max(entry.duration, 0),
      running_user_id: runs ? userId : null,
      tag_ids: [...new Set(entry.tags.map((t) => ids.tags.get(nameKey(t))!))],
      shared_with_user_ids: [],
      created_with: "import",
      created_at: now,
      at: now,
      server_deleted_at: entry.deleted ? now : null,
    };
    if (member === undefined) adopted.push({ row, email: entry.email });
    else plain.push(stored_(row));
  }
  if (!write) return;
  const trx = db as Knex.Transaction;
  // Many rows per statement (within SQLite's bound variables: 17 columns a row).
  for (const part of chunks(plain)) await trx(timeEntries.table).insert(part);
  for (const { row, email } of adopted) {
    const { id } = await timeEntries.insert(trx, row);
    await trx(ORIGINS).insert({ time_entry_id: id, workspace_id: workspace, email });
  }
}

/** A row as the engines take it (JSON columns as text, their ids JSON numbers as the table writes them), for a statement of many rows. */
function stored_(row: Omit<TimeEntryRow, "id">): Record<string, unknown> {
  return { ...row, tag_ids: JSON.stringify(row.tag_ids, jsonIds), shared_with_user_ids: JSON.stringify(row.shared_with_user_ids, jsonIds) };
}
