import { chunks } from "../../../lib/chunks.js";
import { dbDate, selectArrays, type Knex } from "../../../lib/db.js";
import { compareIds, idBinding, jsonIds, readId, readIdOrNull } from "../../../lib/ids.js";
import { amountInCents, centsOf } from "../reporting.js";
import type { ReportContext } from "./context.js";
import { selectAs, flag, idsOf, rateSql, reportEntries, secondsSql } from "./filters.js";
import { type Sql } from "../reporting.js";
import { lookups, type Lookups } from "./lookups.js";
import { MAX_DETAILED_PAGE, type DetailedOrder, type PageStart } from "./rules.js";

/**
 * The detailed report: a page of rows in the order asked, one per time entry, or (grouped) one per
 * group of entries alike in user, project, task, billable, description and tags. Pages are found by
 * offset from the first row number, or in date order by seeking from the first entry's start and
 * id (what X-Next-Timestamp and X-Next-ID name), so a deep page costs what the first does.
 */

export interface DetailedEntry {
  id: bigint;
  /** Rounded as asked. */
  seconds: number;
  start: Date;
  stop: Date;
  at: Date;
}

/** What a row is named by (the enriched answer's fields, and what exports print). */
export interface DetailedNames {
  username: string;
  email: string;
  projectName: string | null;
  projectColor: string | null;
  clientName: string | null;
  taskName: string | null;
  tagNames: string[];
}

export interface DetailedRow {
  rowNumber: number;
  userId: bigint;
  projectId: bigint | null;
  taskId: bigint | null;
  billable: boolean;
  description: string;
  /** Live tags only. */
  tagIds: bigint[];
  hourlyRateInCents: number;
  /** The billable amount of the row's seconds (0 when not billable). */
  amountInCents: number;
  entries: DetailedEntry[];
  names: DetailedNames;
}

export interface DetailedOptions {
  grouped: boolean;
  order: DetailedOrder;
  page: PageStart;
}

export interface DetailedPage {
  rows: DetailedRow[];
  /** While rows remain: the next page's first entry, row number and start (UNIX seconds). */
  next?: { id: bigint; rowNumber: number; timestamp: number };
}

const ENTRY_COLUMNS = ["te.id", "te.user_id", "te.project_id", "te.task_id", "te.billable", "te.description", "te.tag_ids", "te.start", "te.stop", "te.at"];

/** Members by name ignoring case, then id: the `user` order, as an SQL rank of te.user_id. */
function userRank(ctx: ReportContext): Sql {
  const ranked = [...ctx.people].sort(([ia, a], [ib, b]) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || compareIds(ia, ib)).map(([id]) => id);
  if (ranked.length === 0) return { sql: "0", bindings: [] };
  return { sql: `CASE te.user_id ${ranked.map(() => "WHEN ? THEN ?").join(" ")} ELSE ${ranked.length} END`, bindings: ranked.flatMap((id, i) => [idBinding(id), i]) };
}

/** The sort key of each order: per entry, and per group (an aggregate). */
function orderKeys(ctx: ReportContext, order: DetailedOrder, seconds: string): { entry: Sql; group: Sql } {
  const plain = (sql: string): Sql => ({ sql, bindings: [] });
  switch (order.by) {
    case "date":
      return { entry: plain("te.start"), group: plain(order.descending ? "MAX(te.start)" : "MIN(te.start)") };
    case "duration":
      return { entry: plain(seconds), group: plain(`SUM(${seconds})`) };
    case "description":
      return { entry: plain("LOWER(COALESCE(te.description, ''))"), group: plain("MIN(LOWER(COALESCE(te.description, '')))") };
    case "last_update":
      return { entry: plain("te.at"), group: plain("MAX(te.at)") };
    case "user": {
      const rank = userRank(ctx);
      return { entry: rank, group: { sql: `MIN(${rank.sql})`, bindings: rank.bindings } };
    }
  }
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

interface RawEntry {
  id: bigint;
  userId: bigint;
  projectId: bigint | null;
  taskId: bigint | null;
  billable: boolean;
  description: string;
  tagIds: bigint[];
  rate: number;
  entry: DetailedEntry;
}

function rawEntry(raw: Record<string, unknown>): RawEntry {
  const id = readId(raw.id);
  return {
    id,
    userId: readId(raw.user_id),
    projectId: readIdOrNull(raw.project_id),
    taskId: readIdOrNull(raw.task_id),
    billable: flag(raw.billable),
    description: String(raw.description ?? ""),
    tagIds: idsOf(raw.tag_ids),
    rate: Number(raw.hourly_rate),
    entry: { id, seconds: Number(raw.seconds), start: dbDate(raw.start as Date), stop: dbDate(raw.stop as Date), at: dbDate(raw.at as Date) },
  };
}

/** What makes entries one group: user, project, task, billable, description, the stored tags. */
const groupKey = (e: { userId: bigint; projectId: bigint | null; taskId: bigint | null; billable: boolean; description: string; tagIds: bigint[] }) =>
  JSON.stringify([e.userId, e.projectId, e.taskId, e.billable, e.description, e.tagIds], jsonIds);

/** Where a page of entries starts: after `skip` rows (by offset), or at the entry `seek` names in date order. */
interface EntriesFrom {
  skip: number;
  seek?: { at: Date; id: bigint };
}

/**
 * The query of `limit` entries (one per row, ungrouped) in the order asked from `from`: `columns`
 * of the entry, then its rounded `seconds` and `hourly_rate`.
 */
function entriesQuery(db: Knex, ctx: ReportContext, order: DetailedOrder, from: EntriesFrom, limit: number, columns: string[]): Knex.QueryBuilder {
  const seconds = secondsSql(ctx.rounding);
  const keys = orderKeys(ctx, order, seconds);
  const dir = order.descending ? "DESC" : "ASC";
  const { seek } = from;
  const q = reportEntries(db, ctx, { seeking: seek !== undefined }).select(...columns, selectAs(db, seconds, "seconds"), selectAs(db, rateSql(ctx), "hourly_rate"));
  if (seek) {
    const [after, atOrAfter] = order.descending ? ["<", "<="] : [">", ">="];
    // The plain bound first: it is what lets the (workspace_id, start) index skip the rows before the page.
    q.andWhere("te.start", atOrAfter, seek.at);
    q.andWhere((w) => w.where("te.start", after, seek.at).orWhere((same) => same.where("te.start", seek.at).andWhere("te.id", atOrAfter, idBinding(seek.id))));
  } else if (from.skip > 0) q.offset(from.skip);
  return q
    .orderByRaw(`${keys.entry.sql} ${dir}`, keys.entry.bindings)
    .orderBy("te.id", dir.toLowerCase() as "asc" | "desc")
    .limit(limit);
}

/** One page of the detailed report. */
export async function detailedPage(db: Knex, ctx: ReportContext, options: DetailedOptions): Promise<DetailedPage> {
  const seconds = secondsSql(ctx.rounding);
  const rate = rateSql(ctx);
  const keys = orderKeys(ctx, options.order, seconds);
  const dir = options.order.descending ? "DESC" : "ASC";
  const { page } = options;
  let groups: { entries: RawEntry[]; keyStart: Date }[];
  if (!options.grouped) {
    const seek = page.seek && { at: new Date(page.seek.timestamp * 1000), id: page.seek.id };
    const raws: Record<string, unknown>[] = await entriesQuery(db, ctx, options.order, { skip: page.rowNumber - 1, seek }, page.size + 1, ENTRY_COLUMNS);
    groups = raws.map(rawEntry).map((e) => ({ entries: [e], keyStart: e.entry.start }));
  } else {
    const first = options.order.descending ? "MAX(te.start)" : "MIN(te.start)";
    const q = reportEntries(db, ctx)
      .select(
        selectAs(db, "te.user_id", "g_user"),
        selectAs(db, "te.project_id", "g_project"),
        selectAs(db, "te.task_id", "g_task"),
        selectAs(db, "te.billable", "is_billable"),
        selectAs(db, "COALESCE(te.description, '')", "g_description"),
        selectAs(db, "te.tag_ids", "g_tags"),
        selectAs(db, first, "key_start"),
      )
      .groupBy("g_user", "g_project", "g_task", "is_billable", "g_description", "g_tags")
      .orderByRaw(`${keys.group.sql} ${dir}`, keys.group.bindings)
      .orderByRaw(`MIN(te.id) ${dir}`)
      .limit(page.size + 1);
    if (page.rowNumber > 1) q.offset(page.rowNumber - 1);
    const found: Record<string, unknown>[] = await q;
    const wanted = found.map((raw) => ({
      key: groupKey({ userId: readId(raw.g_user), projectId: readIdOrNull(raw.g_project), taskId: readIdOrNull(raw.g_task), billable: flag(raw.is_billable), description: String(raw.g_description), tagIds: idsOf(raw.g_tags) }),
      raw,
    }));
    // The page's groups' entries: those of their users, projects, tasks and descriptions, matched on tags here.
    const members = wanted.length === 0 ? [] : await groupEntries(db, ctx, seconds, rate, found);
    const byKey = new Map<string, RawEntry[]>();
    for (const e of members) {
      const key = groupKey(e);
      const group = byKey.get(key);
      if (group) group.push(e);
      else byKey.set(key, [e]);
    }
    groups = wanted.map((w) => ({ entries: byKey.get(w.key) ?? [], keyStart: dbDate(w.raw.key_start as Date) })).filter((g) => g.entries.length > 0);
  }
  const more = groups.length > page.size;
  const shown = groups.slice(0, page.size);
  const live = await lookups(db, ctx.scope.workspaceId, {
    projects: shown.map((g) => g.entries[0].projectId),
    tasks: shown.map((g) => g.entries[0].taskId),
    tags: shown.flatMap((g) => g.entries[0].tagIds),
  });
  const rows = shown.map((g, i) => detailedRow(ctx, live, g.entries, page.rowNumber + i));
  const following = groups[page.size];
  return {
    rows,
    next: more ? { id: following.entries.map((e) => e.id).reduce((least, id) => (id < least ? id : least)), rowNumber: page.rowNumber + page.size, timestamp: unix(following.keyStart) } : undefined,
  };
}

/**
 * Groups whose entries one query reads: each is a condition of its own, and SQLite refuses a
 * WHERE nested deeper than 1,000 (a grouped page of 1,000 groups, what an export reads, failed).
 */
const GROUPS_PER_QUERY = 200;

/** The entries of the page's groups, in start order. */
async function groupEntries(db: Knex, ctx: ReportContext, seconds: string, rate: Sql, found: Record<string, unknown>[]): Promise<RawEntry[]> {
  const same = (w: Knex.QueryBuilder, column: string, value: unknown) => (value === null ? w.whereNull(column) : w.where(column, value as Knex.Value));
  // Groups that differ in their tags only ask for the same entries: asked for once.
  const conditions = [...new Map(found.map((raw) => [JSON.stringify([raw.g_user, raw.g_project, raw.g_task, flag(raw.is_billable), raw.g_description]), raw])).values()];
  const entries: RawEntry[] = [];
  for (const part of chunks(conditions, GROUPS_PER_QUERY)) {
    const q = reportEntries(db, ctx).select(...ENTRY_COLUMNS, selectAs(db, seconds, "seconds"), selectAs(db, rate, "hourly_rate"));
    q.andWhere((any) => {
      for (const raw of part) {
        any.orWhere((w) => {
          same(w, "te.user_id", raw.g_user);
          same(w, "te.project_id", raw.g_project);
          same(w, "te.task_id", raw.g_task);
          w.where("te.billable", flag(raw.is_billable));
          w.whereRaw("COALESCE(te.description, '') = ?", [String(raw.g_description)]);
        });
      }
    });
    const raws: Record<string, unknown>[] = await q;
    for (const raw of raws) entries.push(rawEntry(raw));
  }
  return entries.sort((a, b) => a.entry.start.getTime() - b.entry.start.getTime() || compareIds(a.id, b.id));
}

function detailedRow(ctx: ReportContext, live: Lookups, entries: RawEntry[], rowNumber: number): DetailedRow {
  const e = entries[0];
  const seconds = entries.reduce((sum, x) => sum + x.entry.seconds, 0);
  const cents = centsOf(e.rate);
  const tagIds = e.tagIds.filter((id) => live.tags.has(id));
  const project = e.projectId === null ? undefined : live.projects.get(e.projectId);
  const client = project?.client_id ? live.clients.get(project.client_id) : undefined;
  const person = ctx.people.get(e.userId);
  return {
    rowNumber,
    userId: e.userId,
    projectId: e.projectId,
    taskId: e.taskId,
    billable: e.billable,
    description: e.description,
    tagIds,
    hourlyRateInCents: cents,
    amountInCents: e.billable ? amountInCents([{ seconds, rateInCents: cents }]) : 0,
    entries: entries.map((x) => x.entry),
    names: {
      username: person?.name ?? "",
      email: person?.email ?? "",
      projectName: project?.name ?? null,
      projectColor: project?.color ?? null,
      clientName: client?.name ?? null,
      taskName: e.taskId === null ? null : (live.tasks.get(e.taskId)?.name ?? null),
      tagNames: tagIds.map((id) => live.tags.get(id)!.name),
    },
  };
}

/**
 * Every row of the detailed report in order, a page at a time (seeking in date order): what an
 * export writes, without holding the report.
 */
export async function* detailedRows(db: Knex, ctx: ReportContext, options: Omit<DetailedOptions, "page">): AsyncGenerator<DetailedRow> {
  let page: PageStart = { size: MAX_DETAILED_PAGE, rowNumber: 1 };
  for (;;) {
    const { rows, next } = await detailedPage(db, ctx, { ...options, page });
    yield* rows;
    if (!next) return;
    const seek = options.order.by === "date" && !options.grouped ? { timestamp: next.timestamp, id: next.id } : undefined;
    page = { size: MAX_DETAILED_PAGE, rowNumber: next.rowNumber, seek };
  }
}

/** The columns of an exported entry, in the order `EXPORTED` names them. */
const EXPORT_COLUMNS = ["te.id", "te.user_id", "te.project_id", "te.task_id", "te.billable", "te.description", "te.tag_ids", "te.start", "te.stop"];

/** Where each value is in an exported entry (`detailedEntryPages`): its columns, then the rounded seconds and the hourly rate. */
export const EXPORTED = { id: 0, userId: 1, projectId: 2, taskId: 3, billable: 4, description: 5, tagIds: 6, start: 7, stop: 8, seconds: 9, rate: 10 } as const;

/** Entries per query of an export. */
const EXPORT_PAGE = MAX_DETAILED_PAGE;

/** The ids an export has looked up (found or not), and the tag lists (as stored) it has read. */
interface Asked {
  projects: Set<bigint>;
  tasks: Set<bigint>;
  tags: Set<bigint>;
  tagLists: Set<unknown>;
}

/** Adds to `known` what the ids of `rows` name that no earlier page asked for (`lookups`). */
async function lookUpMissing(db: Knex, ctx: ReportContext, known: Lookups, asked: Asked, rows: unknown[][]): Promise<void> {
  const wanted = { projects: [] as bigint[], tasks: [] as bigint[], tags: [] as bigint[] };
  const ask = (kind: "projects" | "tasks" | "tags", raw: unknown) => {
    if (raw === null) return;
    const id = readId(raw);
    if (asked[kind].has(id)) return;
    asked[kind].add(id);
    wanted[kind].push(id);
  };
  for (const row of rows) {
    ask("projects", row[EXPORTED.projectId]);
    ask("tasks", row[EXPORTED.taskId]);
    const list = row[EXPORTED.tagIds];
    if (asked.tagLists.has(list)) continue;
    asked.tagLists.add(list);
    for (const id of idsOf(list)) ask("tags", id);
  }
  if (wanted.projects.length + wanted.tasks.length + wanted.tags.length === 0) return;
  const found = await lookups(db, ctx.scope.workspaceId, wanted);
  for (const key of ["projects", "clients", "tasks", "tags"] as const) {
    for (const [id, row] of found[key]) (known[key] as Map<bigint, unknown>).set(id, row);
  }
}

/**
 * Every entry of the (ungrouped) detailed report in the order asked, a page at a time, as arrays
 * (`EXPORTED` says where each value is), with what their ids name (read once per export, for the
 * ids first seen on each page): what an export writes, without the objects of `detailedRows`.
 * Date order seeks from the page's first entry (its start to the millisecond and id); other orders
 * count rows, as `detailedRows` does.
 */
export async function* detailedEntryPages(db: Knex, ctx: ReportContext, order: DetailedOrder): AsyncGenerator<{ rows: unknown[][]; live: Lookups }> {
  const live: Lookups = { projects: new Map(), clients: new Map(), tasks: new Map(), tags: new Map() };
  const asked: Asked = { projects: new Set(), tasks: new Set(), tags: new Set(), tagLists: new Set() };
  const read = (from: EntriesFrom) => {
    const reading = selectArrays(db, entriesQuery(db, ctx, order, from, EXPORT_PAGE + 1, EXPORT_COLUMNS));
    // Awaited below, unless the reader of the export went away meanwhile.
    reading.catch(() => undefined);
    return { from, reading };
  };
  let page = read({ skip: 0 });
  for (;;) {
    const rows = await page.reading;
    const more = rows.length > EXPORT_PAGE;
    if (more) {
      const next = rows[EXPORT_PAGE];
      rows.length = EXPORT_PAGE;
      // The next page is asked for before this one is written: a database server (MariaDB) reads it meanwhile.
      page = read(order.by === "date" ? { skip: 0, seek: { at: dbDate(next[EXPORTED.start] as Date), id: readId(next[EXPORTED.id]) } } : { skip: page.from.skip + EXPORT_PAGE });
    }
    await lookUpMissing(db, ctx, live, asked, rows);
    yield { rows, live };
    if (!more) return;
  }
}
