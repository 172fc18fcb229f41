import type { Knex } from "../../../lib/db.js";
import { compareIds, idBinding, jsonIds, readId, readIdOrNull } from "../../../lib/ids.js";
import type { SummaryReportAudit } from "../../../gen/tracking/v1/reports_pb.js";
import { reportFeatureNeeded } from "../errors.js";
import type { TrackingScope } from "../scope.js";
import { visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import { clients } from "../clients/store.js";
import { amountInCents, centsOf } from "../reporting.js";
import type { ReportContext } from "./context.js";
import { selectAs, flag, idsOf, rateSql, reportEntries, summedEntries } from "./filters.js";
import { byName, lookups, type Lookups } from "./lookups.js";
import type { Dimension } from "./rules.js";

/**
 * The summary report: the range's tracked seconds grouped and sub-grouped, summed in SQL per
 * group, sub-group, hourly rate and billable flag; here the sums become groups with their rates.
 */

/** Billable seconds at one hourly rate (in the workspace's currency). */
export interface RateSeconds {
  hourlyRateInCents: number;
  billableSeconds: number;
}

export interface SummarySubGroup {
  /** The project, client, user or task; null for "without" and for time entries. */
  id: bigint | null;
  /** The description, sub-grouped by time entries; else null. */
  title: string | null;
  /** The name the sub-group is shown by (a description, project, client, user or task name); null for "without". */
  name: string | null;
  seconds: number;
  /** Its time entries, oldest first (with include_time_entry_ids). */
  ids?: bigint[];
  rates: RateSeconds[];
}

export interface SummaryGroup {
  /** The project, client or user; null for "without" and for tags. */
  id: bigint | null;
  /** Tags grouping: the group's live tag ids, ascending ([] without tags). */
  tagIds?: bigint[];
  name: string | null;
  seconds: number;
  /** Billable amount in cents. */
  amountInCents: number;
  subGroups: SummarySubGroup[];
}

export interface SummaryAudit {
  showEmptyGroups: boolean;
  showTrackedGroups: boolean;
  minSeconds?: number;
  maxSeconds?: number;
  minAmountInCents?: number;
  maxAmountInCents?: number;
}

const bound = (v: bigint | undefined) => (v === undefined ? undefined : Number(v));

/** The summary's time audit (a premium feature): which groups are shown, by their totals. */
export function summaryAudit(scope: TrackingScope, audit: SummaryReportAudit | undefined): SummaryAudit | undefined {
  if (!audit) return undefined;
  if (!scope.premium) throw reportFeatureNeeded();
  const f = audit.groupFilter;
  return {
    showEmptyGroups: audit.showEmptyGroups ?? false,
    showTrackedGroups: audit.showTrackedGroups ?? true,
    minSeconds: bound(f?.minDurationSeconds),
    maxSeconds: bound(f?.maxDurationSeconds),
    minAmountInCents: bound(f?.minAmountCents),
    maxAmountInCents: bound(f?.maxAmountCents),
  };
}

export interface SummaryOptions {
  grouping: Dimension;
  subGrouping: Dimension;
  /** A sub-group per hourly rate (of billable time). */
  distinguishRates: boolean;
  includeIds: boolean;
  /** One sub-group per group, with the group's total. */
  collapse: boolean;
  audit?: SummaryAudit;
}

/** What entries are grouped by, per dimension (tags: the stored list, made a set of live tags here). */
const KEY: Record<Dimension, string> = {
  projects: "te.project_id",
  clients: "p.client_id",
  users: "te.user_id",
  tasks: "te.task_id",
  tags: "te.tag_ids",
  time_entries: "COALESCE(te.description, '')",
};

/** The entry's columns a key reads beyond the user, project and task (summedEntries carries those). */
const OWN_COLUMNS: Record<Dimension, string[]> = { projects: [], clients: [], users: [], tasks: [], tags: ["te.tag_ids"], time_entries: ["te.description"] };

interface Member {
  id: bigint | null;
  tagIds?: bigint[];
  title: string | null;
}

/** A group or sub-group's identity from its key's value. */
function memberOf(dimension: Dimension, raw: unknown, live: Lookups): { key: string; member: Member } {
  if (dimension === "tags") {
    const tagIds = [...new Set(idsOf(raw).filter((id) => live.tags.has(id)))].sort(compareIds);
    return { key: JSON.stringify(tagIds, jsonIds), member: { id: null, tagIds, title: null } };
  }
  if (dimension === "time_entries") return { key: `d${String(raw ?? "")}`, member: { id: null, title: String(raw ?? "") } };
  const id = readIdOrNull(raw);
  return { key: String(id), member: { id, title: null } };
}

/** The name a group or sub-group is shown and sorted by. */
function nameOf(dimension: Dimension, m: Member, ctx: ReportContext, live: Lookups): string | null {
  if (dimension === "time_entries") return m.title;
  if (dimension === "tags") return m.tagIds!.length ? m.tagIds!.map((id) => live.tags.get(id)!.name).sort((a, b) => a.localeCompare(b)).join(", ") : null;
  if (m.id === null) return null;
  const name =
    dimension === "projects" ? live.projects.get(m.id)?.name : dimension === "clients" ? live.clients.get(m.id)?.name : dimension === "tasks" ? live.tasks.get(m.id)?.name : ctx.people.get(m.id)?.name;
  return name ?? null;
}

interface SubAcc extends Member {
  seconds: number;
  ids: bigint[];
  rates: Map<number, number>;
}

interface GroupAcc extends Member {
  subs: Map<string, SubAcc>;
}

const addRate = (rates: Map<number, number>, cents: number, seconds: number) => rates.set(cents, (rates.get(cents) ?? 0) + seconds);
const ratesOf = (rates: Map<number, number>): RateSeconds[] => [...rates].sort(([a], [b]) => a - b).map(([hourlyRateInCents, billableSeconds]) => ({ hourlyRateInCents, billableSeconds }));
const amountOf = (rates: RateSeconds[]) => amountInCents(rates.map((r) => ({ seconds: r.billableSeconds, rateInCents: r.hourlyRateInCents })));

/** The groups of the summary report, each with its sub-groups, sorted by name ("without" last). */
export async function summaryGroups(db: Knex, ctx: ReportContext, options: SummaryOptions): Promise<SummaryGroup[]> {
  const { grouping, subGrouping } = options;
  const rate = rateSql(ctx);
  // Summed first per user, project, task, billable flag and the entry's own columns the keys read.
  const own = [...new Set([grouping, subGrouping].flatMap((d) => OWN_COLUMNS[d]))];
  const sums: Record<string, unknown>[] = await summedEntries(db, ctx, own)
    .select(selectAs(db, KEY[grouping], "g_key"), selectAs(db, KEY[subGrouping], "s_key"), selectAs(db, rate, "hourly_rate"), selectAs(db, "te.billable", "is_billable"), selectAs(db, "SUM(te.seconds)", "seconds"))
    .groupBy("g_key", "s_key", "hourly_rate", "is_billable");

  /** The ids of a dimension the sums name, as group or sub-group: their names sort and name them. */
  const named = (dimension: Dimension) => {
    const key = grouping === dimension ? "g_key" : subGrouping === dimension ? "s_key" : undefined;
    return key ? sums.map((r) => readIdOrNull(r[key])) : [];
  };
  const live = await lookups(db, ctx.scope.workspaceId, {
    projects: named("projects"),
    clients: named("clients"),
    tasks: named("tasks"),
    tags: grouping === "tags" ? sums.flatMap((r) => idsOf(r.g_key)) : [],
  });

  const groups = new Map<string, GroupAcc>();
  /** The sub-group of one sum (or entry): its key's group and sub-group, split by rate when asked. */
  const subOf = (raw: Record<string, unknown>): SubAcc => {
    const g = memberOf(grouping, raw.g_key, live);
    let group = groups.get(g.key);
    if (!group) groups.set(g.key, (group = { ...g.member, subs: new Map() }));
    const s = options.collapse ? { key: "all", member: { id: null, title: null } } : memberOf(subGrouping, raw.s_key, live);
    const key = options.distinguishRates && !options.collapse ? `${s.key}|${flag(raw.is_billable) ? centsOf(Number(raw.hourly_rate)) : "-"}` : s.key;
    let sub = group.subs.get(key);
    if (!sub) group.subs.set(key, (sub = { ...s.member, seconds: 0, ids: [], rates: new Map() }));
    return sub;
  };
  for (const raw of sums) {
    const sub = subOf(raw);
    const seconds = Number(raw.seconds);
    sub.seconds += seconds;
    if (flag(raw.is_billable)) addRate(sub.rates, centsOf(Number(raw.hourly_rate)), seconds);
  }
  if (options.includeIds) {
    // Entry ids are a list per sub-group, not a sum: read in start order and placed.
    const entries: Record<string, unknown>[] = await reportEntries(db, ctx)
      .select(selectAs(db, "te.id", "entry_id"), selectAs(db, KEY[grouping], "g_key"), selectAs(db, KEY[subGrouping], "s_key"), selectAs(db, rate, "hourly_rate"), selectAs(db, "te.billable", "is_billable"))
      .orderBy("te.start")
      .orderBy("te.id");
    for (const raw of entries) subOf(raw).ids.push(readId(raw.entry_id));
  }
  if (options.audit?.showEmptyGroups) await addEmptyGroups(db, ctx, grouping, groups, live);

  const out: SummaryGroup[] = [...groups.values()].map((g) => {
    const subGroups = [...g.subs.values()].map((s) => ({
      id: s.id,
      title: s.title,
      name: options.collapse ? null : nameOf(subGrouping, s, ctx, live),
      seconds: s.seconds,
      ids: options.includeIds ? s.ids : undefined,
      rates: ratesOf(s.rates),
    }));
    subGroups.sort(byName((s) => s.name ?? undefined));
    const seconds = subGroups.reduce((sum, s) => sum + s.seconds, 0);
    const amount = amountOf(subGroups.flatMap((s) => s.rates));
    return { id: g.id, tagIds: g.tagIds, name: nameOf(grouping, g, ctx, live), seconds, amountInCents: amount, subGroups };
  });
  out.sort(byName((g) => g.name ?? undefined));
  return options.audit ? out.filter((g) => keptByAudit(g, options.audit!)) : out;
}

/** The audit's group filter and its choice of tracked and empty groups. */
function keptByAudit(g: SummaryGroup, audit: SummaryAudit): boolean {
  if (g.seconds > 0 && !audit.showTrackedGroups) return false;
  if (audit.minSeconds !== undefined && g.seconds < audit.minSeconds) return false;
  if (audit.maxSeconds !== undefined && g.seconds > audit.maxSeconds) return false;
  if (audit.minAmountInCents !== undefined && g.amountInCents < audit.minAmountInCents) return false;
  if (audit.maxAmountInCents !== undefined && g.amountInCents > audit.maxAmountInCents) return false;
  return true;
}

/**
 * The audit's empty groups: the projects the caller sees, the workspace's clients, or the members
 * the caller sees (themselves, unless an admin), as the body's filters narrow them; no sub-groups.
 */
async function addEmptyGroups(db: Knex, ctx: ReportContext, grouping: Dimension, groups: Map<string, GroupAcc>, live: Lookups): Promise<void> {
  const { scope, filters } = ctx;
  let ids: bigint[] = [];
  if (grouping === "users") {
    ids = [...ctx.people].filter(([id, p]) => p.active && (scope.admin || id === scope.userId)).map(([id]) => id);
    if (filters.userIds) ids = ids.filter((id) => filters.userIds!.includes(id));
  } else if (grouping === "projects") {
    const q = visibleTo(db, projects.query(db, scope.workspaceId).whereNull("server_deleted_at").where("active", true), scope.viewer);
    if (filters.projects) q.whereIn("id", filters.projects.ids.map(idBinding));
    if (filters.clients) q.whereIn("client_id", filters.clients.ids.map(idBinding));
    const rows = ((await q) as Record<string, unknown>[]).map((raw) => projects.read(raw));
    for (const row of rows) live.projects.set(row.id, row);
    ids = rows.map((r) => r.id);
  } else if (grouping === "clients") {
    const q = clients.query(db, scope.workspaceId).where("archived", false);
    if (filters.clients) q.whereIn("id", filters.clients.ids.map(idBinding));
    const rows = ((await q) as Record<string, unknown>[]).map((raw) => clients.read(raw));
    for (const row of rows) live.clients.set(row.id, row);
    ids = rows.map((r) => r.id);
  }
  for (const id of ids) if (!groups.has(String(id))) groups.set(String(id), { id, title: null, subs: new Map() });
}
