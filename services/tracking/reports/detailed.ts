import { dbDate, type Knex } from "../../../lib/db.js";
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
  id: number;
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
  userId: number;
  projectId: number | null;
  taskId: number | null;
  billable: boolean;
  description: string;
  /** Live tags only. */
  tagIds: number[];
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
  next?: { id: number; rowNumber: number; timestamp: number };
}

const ENTRY_COLUMNS = ["te.id", "te.user_id", "te.project_id", "te.task_id", "te.billable", "te.description", "te.tag_ids", "te.start", "te.stop", "te.at"];

/** Members by name ignoring case, then id: the `user` order, as an SQL rank of te.user_id. */
function userRank(ctx: ReportContext): Sql {
  const ranked = [...ctx.people].sort(([ia, a], [ib, b]) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || ia - ib).map(([id]) => id);
  if (ranked.length === 0) return { sql: "0", bindings: [] };
  return { sql: `CASE te.user_id ${ranked.map(() => "WHEN ? THEN ?").join(" ")} ELSE ${ranked.length} END`, bindings: ranked.flatMap((id, i) => [id, i]) };
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
  id: number;
  userId: number;
  projectId: number | null;
  taskId: number | null;
  billable: boolean;
  description: string;
  tagIds: number[];
  rate: number;
  entry: DetailedEntry;
}

function rawEntry(raw: Record<string, unknown>): RawEntry {
  const id = Number(raw.id);
  return {
    id,
    userId: Number(raw.user_id),
    projectId: raw.project_id === null ? null : Number(raw.project_id),
    taskId: raw.task_id === null ? null : Number(raw.task_id),
    billable: flag(raw.billable),
    description: String(raw.description ?? ""),
    tagIds: idsOf(raw.tag_ids),
    rate: Number(raw.hourly_rate),
    entry: { id, seconds: Number(raw.seconds), start: dbDate(raw.start as Date), stop: dbDate(raw.stop as Date), at: dbDate(raw.at as Date) },
  };
}

/** What makes entries one group: user, project, task, billable, description, the stored tags. */
const groupKey = (e: { userId: number; projectId: number | null; taskId: number | null; billable: boolean; description: string; tagIds: number[] }) =>
  JSON.stringify([e.userId, e.projectId, e.taskId, e.billable, e.description, e.tagIds]);

/** One page of the detailed report. */
export async function detailedPage(db: Knex, ctx: ReportContext, options: DetailedOptions): Promise<DetailedPage> {
  const seconds = secondsSql(ctx.rounding);
  const rate = rateSql(ctx);
  const keys = orderKeys(ctx, options.order, seconds);
  const dir = options.order.descending ? "DESC" : "ASC";
  const { page } = options;
  let groups: { entries: RawEntry[]; keyStart: Date }[];
  if (!options.grouped) {
    const q = reportEntries(db, ctx).select(...ENTRY_COLUMNS, selectAs(db, seconds, "seconds"), selectAs(db, rate, "hourly_rate"));
    if (page.seek) {
      const at = new Date(page.seek.timestamp * 1000);
      const [after, atOrAfter] = options.order.descending ? ["<", "<="] : [">", ">="];
      // The plain bound first: it is what lets the (workspace_id, start) index skip the rows before the page.
      q.andWhere("te.start", atOrAfter, at);
      q.andWhere((w) => w.where("te.start", after, at).orWhere((same) => same.where("te.start", at).andWhere("te.id", atOrAfter, page.seek!.id)));
    } else if (page.rowNumber > 1) q.offset(page.rowNumber - 1);
    const raws: Record<string, unknown>[] = await q
      .orderByRaw(`${keys.entry.sql} ${dir}`, keys.entry.bindings)
      .orderBy("te.id", dir.toLowerCase() as "asc" | "desc")
      .limit(page.size + 1);
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
      key: groupKey({ userId: Number(raw.g_user), projectId: raw.g_project === null ? null : Number(raw.g_project), taskId: raw.g_task === null ? null : Number(raw.g_task), billable: flag(raw.is_billable), description: String(raw.g_description), tagIds: idsOf(raw.g_tags) }),
      raw,
    }));
    // The page's groups' entries: those of their users, projects, tasks and descriptions, matched on tags here.
    const members = wanted.length === 0 ? [] : await groupEntries(db, ctx, seconds, rate, found);
    const byKey = new Map<string, RawEntry[]>();
    for (const e of members) byKey.set(groupKey(e), [...(byKey.get(groupKey(e)) ?? []), e]);
    groups = wanted.map((w) => ({ entries: byKey.get(w.key) ?? [], keyStart: dbDate(w.raw.key_start as Date) })).filter((g) => g.entries.length > 0);
  }
  const more = groups.length > page.size;
  const shown = groups.slice(0, page.size);
  const live = await lookups(db, ctx.scope.workspace, {
    projects: shown.map((g) => g.entries[0].projectId),
    tasks: shown.map((g) => g.entries[0].taskId),
    tags: shown.flatMap((g) => g.entries[0].tagIds),
  });
  const rows = shown.map((g, i) => detailedRow(ctx, live, g.entries, page.rowNumber + i));
  const following = groups[page.size];
  return {
    rows,
    next: more ? { id: Math.min(...following.entries.map((e) => e.id)), rowNumber: page.rowNumber + page.size, timestamp: unix(following.keyStart) } : undefined,
  };
}

/** The entries of the page's groups, in start order. */
async function groupEntries(db: Knex, ctx: ReportContext, seconds: string, rate: Sql, found: Record<string, unknown>[]): Promise<RawEntry[]> {
  const q = reportEntries(db, ctx).select(...ENTRY_COLUMNS, selectAs(db, seconds, "seconds"), selectAs(db, rate, "hourly_rate"));
  const same = (w: Knex.QueryBuilder, column: string, value: unknown) => (value === null ? w.whereNull(column) : w.where(column, value as Knex.Value));
  q.andWhere((any) => {
    for (const raw of found) {
      any.orWhere((w) => {
        w.where("te.user_id", Number(raw.g_user));
        same(w, "te.project_id", raw.g_project);
        same(w, "te.task_id", raw.g_task);
        w.where("te.billable", flag(raw.is_billable));
        w.whereRaw("COALESCE(te.description, '') = ?", [String(raw.g_description)]);
      });
    }
  });
  const raws: Record<string, unknown>[] = await q.orderBy("te.start").orderBy("te.id");
  return raws.map(rawEntry);
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
