import { Readable, pipeline } from "node:stream";
import { parse } from "csv-parse";
import { detailedReportColumns } from "../reports/formats/index.js";
import * as layout from "../portability/layout.js";
import { importFileInvalid } from "../errors.js";
import { openArchive, looksLikeZip, type Archive } from "./archive.js";
import {
  checkedDuration,
  csvBillable,
  csvDuration,
  csvTags,
  importedDescription,
  importedEmail,
  importedAmount,
  importedDay,
  importedName,
  importedSeconds,
  importedText,
  jsonInstant,
  nameKey,
  optionalName,
  plainProject,
  projectKey,
  taskKey,
  wallClock,
  type ImportedClient,
  type ImportedEntry,
  type ImportedGroup,
  type ImportedProject,
  type ImportedProjectGroup,
  type ImportedProjectUser,
  type ImportedTask,
  type ProjectRef,
} from "./rules.js";

/**
 * Reads an import's files: the real service's workspace ZIP, this server's own (the same layout
 * plus the time entries as JSON per year, read in preference to its CSV), and the detailed
 * report's CSV files. A read checks every file whole and answers what they name (clients,
 * projects, tasks, tags, project users, people), handing each time entry, in the files' order, to
 * `onEntry`: the first read of an import only counts them, the writing read stores them. A
 * malformed file anywhere throws the refusal that names it.
 */

/** One uploaded file: its name and its bytes (whole, or as they come). */
export interface UploadedFile {
  name: string;
  /** The first bytes (what tells a ZIP from a CSV). */
  head(): Promise<Buffer>;
  bytes(): Promise<Buffer>;
  chunks(): AsyncIterable<Buffer>;
}

/** What the files name, by the keys names match on. */
export interface ImportContent {
  clients: Map<string, ImportedClient>;
  projects: Map<string, ImportedProject>;
  tasks: Map<string, ImportedTask>;
  tags: Map<string, string>;
  projectUsers: ImportedProjectUser[];
  /** The organization's groups the files name (`user_groups.json`, members from our `groups.json`), by the key of their name. */
  groups: Map<string, ImportedGroup>;
  projectGroups: ImportedProjectGroup[];
  /** Everyone the files name (workspace users, owners of entries): address to name. */
  people: Map<string, string>;
  entries: number;
}

/** The content as a job row keeps it (JSON). */
export interface ImportContentJson {
  clients: [string, ImportedClient][];
  projects: [string, ImportedProject][];
  tasks: [string, ImportedTask][];
  tags: [string, string][];
  projectUsers: ImportedProjectUser[];
  groups?: [string, ImportedGroup][];
  projectGroups?: ImportedProjectGroup[];
  people: [string, string][];
  entries: number;
}

export const contentJson = (c: ImportContent): ImportContentJson => ({
  clients: [...c.clients],
  projects: [...c.projects],
  tasks: [...c.tasks],
  tags: [...c.tags],
  projectUsers: c.projectUsers,
  groups: [...c.groups],
  projectGroups: c.projectGroups,
  people: [...c.people],
  entries: c.entries,
});

export const contentOf = (j: ImportContentJson): ImportContent => ({
  clients: new Map(j.clients),
  projects: new Map(j.projects),
  tasks: new Map(j.tasks),
  tags: new Map(j.tags),
  projectUsers: j.projectUsers,
  groups: new Map(j.groups ?? []),
  projectGroups: j.projectGroups ?? [],
  people: new Map(j.people),
  entries: j.entries,
});

export type EntrySink = (entry: ImportedEntry) => void | Promise<void>;

const emptyContent = (): ImportContent => ({ clients: new Map(), projects: new Map(), tasks: new Map(), tags: new Map(), projectUsers: [], groups: new Map(), projectGroups: [], people: new Map(), entries: 0 });

/** Adds what an entry names to the content (what the first read makes sure exists before entries are written). */
function noteEntry(content: ImportContent, entry: ImportedEntry): void {
  content.entries++;
  if (!content.people.has(entry.email)) content.people.set(entry.email, "");
  if (entry.project) {
    // Objects are made only for what is new (this runs once an entry), and the entry keeps the
    // project's one reference rather than its own copy (a batch waiting to be written holds less).
    const key = projectKey(entry.project);
    if (!content.projects.has(key)) addProject(content, plainProject(entry.project));
    entry.project = content.projects.get(key)!;
    if (entry.task && !content.tasks.has(taskKey(entry.project, entry.task))) addTask(content, { project: entry.project, name: entry.task, active: true, estimatedSeconds: null, rate: null, assignee: null });
  }
  for (const tag of entry.tags) if (!content.tags.has(nameKey(tag))) content.tags.set(nameKey(tag), tag);
}

function addProject(content: ImportContent, project: ImportedProject): void {
  if (project.client !== null && !content.clients.has(nameKey(project.client))) content.clients.set(nameKey(project.client), { name: project.client, archived: false, notes: null });
  if (!content.projects.has(projectKey(project))) content.projects.set(projectKey(project), project);
}

function addTask(content: ImportContent, task: ImportedTask): void {
  if (!content.tasks.has(taskKey(task.project, task.name))) content.tasks.set(taskKey(task.project, task.name), task);
}

/** Reads every file in order; answers what they name, each entry handed to `onEntry` (after what it names is noted). */
export async function readImport(files: UploadedFile[], timeZone: string, onEntry: EntrySink = () => undefined): Promise<ImportContent> {
  const content = emptyContent();
  const sink: EntrySink = (entry) => {
    noteEntry(content, entry);
    return onEntry(entry);
  };
  for (const file of files) {
    if (looksLikeZip(await file.head())) await readWorkspaceArchive(file.name, await file.bytes(), content, timeZone, sink);
    else if (/\.zip$/i.test(file.name)) throw importFileInvalid(file.name, "not a ZIP archive");
    else if (/\.csv$/i.test(file.name)) await readDetailedCsv(file.name, Readable.from(slices(file.chunks())), timeZone, sink);
    else throw importFileInvalid(file.name, "expected a workspace export (.zip) or a detailed report (.csv)");
  }
  return content;
}

// The detailed report's CSV.

/** The parser's input in small slices: it parses a slice at once, and a few hundred rows waiting to be written stay young garbage. */
async function* slices(chunks: AsyncIterable<Buffer>, size = 64 * 1024): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) for (let at = 0; at < chunk.length; at += size) yield chunk.subarray(at, at + size);
}

/** The header texts an import needs: every column of the detailed report but the amount (its currency varies; nothing reads it). */
const CSV_COLUMNS = detailedReportColumns("").filter((c) => c.kind !== "money").map((c) => c.header);
type CsvColumn = (typeof CSV_COLUMNS)[number];

/** Reads a detailed report CSV as it streams (UTF-8, with or without BOM), one entry per row. */
export async function readDetailedCsv(file: string, input: Readable, timeZone: string, sink: EntrySink): Promise<void> {
  // Lines are counted here (a record's own line breaks, inside quotes, move the next one on):
  // csv-parse's `info` per record would cost a third of the parse.
  const parser = parse({ bom: true, relax_column_count: false });
  // A fault of the input (a refused ZIP entry, a lost database) ends the parse with it (pipe would leave it waiting).
  pipeline(input, parser, () => undefined);
  let index: Record<CsvColumn, number> | undefined;
  let line = 1;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const where = `${file}: line ${line}`;
      line += 1 + lineBreaks(record);
      if (!index) {
        const headers = record.map((h) => h.trim());
        const missing = CSV_COLUMNS.filter((c) => !headers.includes(c));
        if (missing.length > 0) throw importFileInvalid(where, `missing columns ${missing.map((m) => JSON.stringify(m)).join(", ")}: expected the detailed report's header (${CSV_COLUMNS.join(",")},Amount (...))`);
        index = Object.fromEntries(CSV_COLUMNS.map((c) => [c, headers.indexOf(c)])) as Record<CsvColumn, number>;
        continue;
      }
      await sink(csvEntry(record, index, where, timeZone));
    }
  } catch (err) {
    // csv-parse's own faults (an unclosed quote, a row of another length) name their line.
    const e = err as { code?: unknown; message: string; lines?: number };
    if (typeof e.code === "string" && e.code.startsWith("CSV_")) throw importFileInvalid(`${file}: line ${e.lines ?? "?"}`, `malformed CSV (${e.message})`);
    throw err;
  }
  if (!index) throw importFileInvalid(file, "empty: expected the detailed report's header row");
}

/** The line breaks inside a record's fields. */
function lineBreaks(record: string[]): number {
  let n = 0;
  for (const field of record) for (let at = field.indexOf("\n"); at >= 0; at = field.indexOf("\n", at + 1)) n++;
  return n;
}

function csvEntry(record: string[], index: Record<CsvColumn, number>, where: string, timeZone: string): ImportedEntry {
  const cell = (c: CsvColumn) => record[index[c]] ?? "";
  const client = optionalName(cell("Client"), "client", where);
  const projectName = optionalName(cell("Project"), "project", where);
  const task = optionalName(cell("Task"), "task", where);
  if (client !== null && projectName === null) throw importFileInvalid(where, "a Client without a Project");
  if (task !== null && projectName === null) throw importFileInvalid(where, "a Task without a Project");
  return {
    email: importedEmail(cell("Email"), where),
    project: projectName === null ? null : { client, name: projectName },
    task,
    description: importedDescription(cell("Description"), where),
    billable: csvBillable(cell("Billable"), where),
    start: wallClock(cell("Start date"), cell("Start time"), timeZone, where),
    duration: csvDuration(cell("Duration"), where),
    tags: csvTags(cell("Tags"), where),
    deleted: false,
  };
}

// The workspace ZIP.

type Item = Record<string, unknown>;

/** A JSON file of the archive: parsed, or the refusal that names it. */
async function jsonOf(archive: Archive, where: string, name: string): Promise<unknown> {
  const text = (await archive.read(name)).toString("utf8").replace(/^\uFEFF/, "");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw importFileInvalid(`${where}: ${name}`, `invalid JSON (${(err as Error).message})`);
  }
}

/**
 * A list file: an array of objects; `null` (the real export writes some so) or a missing file is an
 * empty list. Its items are handed out one at a time (a year of entries makes no second array of them).
 */
async function listOf(archive: Archive, names: Set<string>, where: string, name: string): Promise<Iterable<{ item: Item; where: string }>> {
  if (!names.has(name)) return [];
  const value = await jsonOf(archive, where, name);
  if (value === null) return [];
  if (!Array.isArray(value)) throw importFileInvalid(`${where}: ${name}`, "expected an array");
  return (function* () {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const at = `${where}: ${name}: item ${i + 1}`;
      if (typeof item !== "object" || item === null || Array.isArray(item)) throw importFileInvalid(at, "expected an object");
      yield { item: item as Item, where: at };
    }
  })();
}

function idOf(item: Item, field: string, where: string, optional: true): number | null;
function idOf(item: Item, field: string, where: string, optional?: false): number;
function idOf(item: Item, field: string, where: string, optional = false): number | null {
  const v = item[field];
  if ((v === null || v === undefined) && optional) return null;
  if (typeof v !== "number" || !Number.isSafeInteger(v)) throw importFileInvalid(where, `${field} must be a whole number`);
  return v;
}

function flagOf(item: Item, field: string, where: string, fallback: boolean): boolean;
function flagOf(item: Item, field: string, where: string, fallback: null): boolean | null;
function flagOf(item: Item, field: string, where: string, fallback: boolean | null): boolean | null {
  const v = item[field];
  if (v === null || v === undefined) return fallback;
  if (typeof v !== "boolean") throw importFileInvalid(where, `${field} must be true or false`);
  return v;
}

/** The files of the real service's layout that an import reads, or checks as JSON though it takes nothing from them. */
const KNOWN_FILES = [layout.CLIENTS_FILE, layout.PROJECTS_FILE, layout.TAGS_FILE, layout.WORKSPACE_USERS_FILE, layout.USER_GROUPS_FILE];
const CHECKED_ONLY = [layout.ALERTS_FILE, layout.TRACKING_REMINDERS_FILE, layout.SCHEDULED_REPORTS_FILE, layout.WORKSPACE_SETTINGS_FILE];

/** The project id of a per-project file (`tasks/<id>.json`), or undefined for another name. */
function perProjectId(name: string, dir: string, fileOf: (id: string) => string): string | undefined {
  if (!name.startsWith(dir)) return undefined;
  const id = name.slice(dir.length).replace(/\.json$/, "");
  return /^\d+$/.test(id) && fileOf(id) === name ? id : undefined;
}

/** The year of a time entries file (`time_entries/<year>.json`, or our deleted entries' `workhub/deleted_time_entries/<year>.json`), or undefined. */
function entriesYear(name: string, dir = layout.TIME_ENTRIES_DIR, fileOf = layout.timeEntriesFile): number | undefined {
  if (!name.startsWith(dir)) return undefined;
  const year = Number(name.slice(dir.length).replace(/\.json$/, ""));
  return Number.isInteger(year) && fileOf(year) === name ? year : undefined;
}
const deletedEntriesYear = (name: string) => entriesYear(name, layout.DELETED_TIME_ENTRIES_DIR, layout.deletedTimeEntriesFile);

async function readWorkspaceArchive(file: string, data: Buffer, content: ImportContent, timeZone: string, sink: EntrySink): Promise<void> {
  const archive = await openArchive(file, data);
  try {
    const names = new Set(archive.entries.map((e) => e.name));
    const taskFiles = archive.entries.map((e) => e.name).filter((n) => perProjectId(n, layout.TASKS_DIR, layout.tasksFile));
    const userFiles = archive.entries.map((e) => e.name).filter((n) => perProjectId(n, layout.PROJECT_USERS_DIR, layout.projectUsersFile));
    const yearFiles = archive.entries
      .map((e) => e.name)
      .filter((n) => entriesYear(n) !== undefined)
      .sort((a, b) => entriesYear(a)! - entriesYear(b)!);
    const deletedYearFiles = archive.entries
      .map((e) => e.name)
      .filter((n) => deletedEntriesYear(n) !== undefined)
      .sort((a, b) => deletedEntriesYear(a)! - deletedEntriesYear(b)!);
    const csv = names.has(layout.DETAILED_CSV_FILE);
    if (![...KNOWN_FILES, ...CHECKED_ONLY].some((n) => names.has(n)) && yearFiles.length === 0 && deletedYearFiles.length === 0 && !csv) {
      throw importFileInvalid(file, `not a workspace export: none of ${KNOWN_FILES.join(", ")} in it`);
    }
    for (const name of CHECKED_ONLY) if (names.has(name)) await jsonOf(archive, file, name);

    // People: the file's user ids stand for addresses.
    const people = new Map<number, string>();
    for (const { item, where } of await listOf(archive, names, file, layout.WORKSPACE_USERS_FILE)) {
      const email = importedEmail(item.email, where);
      // `uid` in the real file; `user_id` in the v9 answer it mirrors.
      people.set(idOf(item, item.uid === undefined ? "user_id" : "uid", where), email);
      content.people.set(email, typeof item.name === "string" ? item.name : "");
    }
    const personOf = (id: number, where: string) => {
      const email = people.get(id);
      if (email === undefined) throw importFileInvalid(where, `user ${id} is not in ${layout.WORKSPACE_USERS_FILE}`);
      return email;
    };

    const clientsById = new Map<number, string>();
    for (const { item, where } of await listOf(archive, names, file, layout.CLIENTS_FILE)) {
      const name = importedName(item.name, "client", where);
      clientsById.set(idOf(item, "id", where), name);
      content.clients.set(nameKey(name), { name, archived: flagOf(item, "archived", where, false), notes: importedText(item.notes, "notes", where) });
    }

    const projectsById = new Map<number, ProjectRef>();
    for (const { item, where } of await listOf(archive, names, file, layout.PROJECTS_FILE)) {
      const clientId = idOf(item, "client_id", where, true) ?? idOf(item, "cid", where, true);
      const clientName = optionalName(item.client_name, "client", where);
      const client = clientId === null ? clientName : (clientsById.get(clientId) ?? clientName);
      if (clientId !== null && client === null) throw importFileInvalid(where, `client ${clientId} is not in ${layout.CLIENTS_FILE}`);
      const ref = { client, name: importedName(item.name, "project", where) };
      const color = typeof item.color === "string" && /^#[0-9a-fA-F]{6}$/.test(item.color) ? item.color.toLowerCase() : null;
      projectsById.set(idOf(item, "id", where), ref);
      addProject(content, {
        client: ref.client,
        name: ref.name,
        active: flagOf(item, "active", where, true),
        isPrivate: flagOf(item, "is_private", where, false),
        color,
        billable: flagOf(item, "billable", where, null),
        startDate: importedDay(item.start_date, "start_date", where),
        endDate: importedDay(item.end_date, "end_date", where),
        estimatedSeconds: importedSeconds(item.estimated_seconds, "estimated_seconds", where),
        autoEstimates: flagOf(item, "auto_estimates", where, null),
        rate: importedAmount(item.rate, "rate", where),
        currency: importedText(item.currency, "currency", where),
        fixedFee: importedAmount(item.fixed_fee, "fixed_fee", where),
      });
    }
    const projectOf = (id: number, where: string) => {
      const ref = projectsById.get(id);
      if (!ref) throw importFileInvalid(where, `project ${id} is not in ${layout.PROJECTS_FILE}`);
      return ref;
    };

    const tasksById = new Map<number, { project: ProjectRef; name: string }>();
    for (const name of taskFiles) {
      const project = projectOf(Number(perProjectId(name, layout.TASKS_DIR, layout.tasksFile)), `${file}: ${name}`);
      for (const { item, where } of await listOf(archive, names, file, name)) {
        const assignee = idOf(item, "user_id", where, true);
        const task = {
          project,
          name: importedName(item.name, "task", where),
          active: flagOf(item, "active", where, true),
          estimatedSeconds: importedSeconds(item.estimated_seconds, "estimated_seconds", where),
          rate: importedAmount(item.rate, "rate", where),
          // An assignee the file does not list is nobody here (the real export lists only the workspace's users).
          assignee: assignee === null ? null : (people.get(assignee) ?? null),
        };
        if (item.id !== undefined) tasksById.set(idOf(item, "id", where), task);
        addTask(content, task);
      }
    }
    for (const name of userFiles) {
      const project = projectOf(Number(perProjectId(name, layout.PROJECT_USERS_DIR, layout.projectUsersFile)), `${file}: ${name}`);
      for (const { item, where } of await listOf(archive, names, file, name)) {
        // A group's member is on the project through the group (the real file lists them with `group_id`).
        if (idOf(item, "group_id", where, true) !== null || idOf(item, "gid", where, true) !== null) continue;
        const labourCost = item.labor_cost !== undefined ? item.labor_cost : item.labour_cost;
        content.projectUsers.push({
          project,
          email: personOf(idOf(item, "user_id", where), where),
          manager: flagOf(item, "manager", where, false),
          rate: importedAmount(item.rate, "rate", where),
          labourCost: importedAmount(labourCost, "labor_cost", where),
        });
      }
    }

    const groupsById = new Map<number, string>();
    for (const { item, where } of await listOf(archive, names, file, layout.USER_GROUPS_FILE)) {
      const name = importedName(item.name, "group", where);
      groupsById.set(idOf(item, item.group_id !== undefined ? "group_id" : "id", where), name);
      if (!content.groups.has(nameKey(name))) content.groups.set(nameKey(name), { name, members: [] });
    }
    // Ours: the groups' members (people the file does not list are no members here).
    for (const { item, where } of await listOf(archive, names, file, layout.GROUP_MEMBERS_FILE)) {
      const name = groupsById.get(idOf(item, "group_id", where)) ?? importedName(item.name, "group", where);
      const group = content.groups.get(nameKey(name)) ?? { name, members: [] };
      if (!Array.isArray(item.users)) throw importFileInvalid(where, "users must be an array");
      for (const user of item.users as unknown[]) {
        const id = typeof user === "object" && user !== null ? (user as Item).user_id : undefined;
        if (typeof id !== "number") throw importFileInvalid(where, "a user without a user_id");
        const email = people.get(id);
        if (email !== undefined && !group.members.includes(email)) group.members.push(email);
      }
      content.groups.set(nameKey(name), group);
    }
    for (const { item, where } of await listOf(archive, names, file, layout.PROJECT_GROUPS_FILE)) {
      const groupId = idOf(item, "group_id", where);
      const group = groupsById.get(groupId);
      if (group === undefined) throw importFileInvalid(where, `group ${groupId} is not in ${layout.USER_GROUPS_FILE}`);
      content.projectGroups.push({ project: projectOf(idOf(item, "pid", where), where), group });
    }

    const tagsById = new Map<number, string>();
    for (const { item, where } of await listOf(archive, names, file, layout.TAGS_FILE)) {
      const name = importedName(item.name, "tag", where);
      if (item.id !== undefined) tagsById.set(idOf(item, "id", where), name);
      if (!content.tags.has(nameKey(name))) content.tags.set(nameKey(name), name);
    }

    // Time entries: this server's JSON when there, else its CSV (the real export has neither); then our deleted ones.
    const refs = { personOf, projectOf, tasksById, tagsById };
    const jsonFiles = async (files: string[], deletedFiles: boolean) => {
      for (const name of files) {
        for (const { item, where } of await listOf(archive, names, file, name)) {
          const entry = jsonEntry(item, where, refs, deletedFiles);
          if (entry) await sink(entry);
        }
      }
    };
    if (yearFiles.length > 0) await jsonFiles(yearFiles, false);
    else if (csv) await readDetailedCsv(`${file}: ${layout.DETAILED_CSV_FILE}`, archive.stream(layout.DETAILED_CSV_FILE), timeZone, sink);
    await jsonFiles(deletedYearFiles, true);
  } finally {
    archive.close();
  }
}

interface EntryRefs {
  personOf(id: number, where: string): string;
  projectOf(id: number, where: string): ProjectRef;
  tasksById: Map<number, { project: ProjectRef; name: string }>;
  tagsById: Map<number, string>;
}

/**
 * A time entry in the v9 shape. The deleted entries' own files are imported as deleted; a deleted
 * entry in a year file (which holds what the API lists) is left out, as before they had files.
 */
function jsonEntry(item: Item, where: string, refs: EntryRefs, deleted: boolean): ImportedEntry | undefined {
  if (!deleted && item.server_deleted_at !== null && item.server_deleted_at !== undefined) return undefined;
  const start = jsonInstant(item.start, "start", where);
  const duration = idOf(item, "duration", where);
  const projectId = idOf(item, "project_id", where, true) ?? idOf(item, "pid", where, true);
  const taskId = idOf(item, "task_id", where, true) ?? idOf(item, "tid", where, true);
  const project = projectId === null ? null : refs.projectOf(projectId, where);
  let task: string | null = null;
  if (taskId !== null) {
    const found = refs.tasksById.get(taskId);
    if (!found) throw importFileInvalid(where, `task ${taskId} is not in the archive's tasks files`);
    task = found.name;
  }
  let tags: string[] = [];
  if (Array.isArray(item.tags)) tags = item.tags.map((t) => importedName(t, "tag", where));
  else if (Array.isArray(item.tag_ids)) {
    tags = item.tag_ids.map((id) => {
      const name = typeof id === "number" ? refs.tagsById.get(id) : undefined;
      if (name === undefined) throw importFileInvalid(where, `tag ${String(id)} is not in ${layout.TAGS_FILE}`);
      return name;
    });
  } else if (item.tags !== null && item.tags !== undefined) throw importFileInvalid(where, "tags must be an array of names");
  const billable = flagOf(item, "billable", where, false);
  return {
    email: refs.personOf(idOf(item, "user_id", where), where),
    project,
    task,
    description: importedDescription(item.description, where),
    billable,
    start,
    // A running entry holds a negative duration (minus its start's UNIX time).
    duration: duration < 0 ? -1 : checkedDuration(duration, where),
    tags,
    deleted,
  };
}
