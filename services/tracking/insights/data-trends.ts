import type { Knex } from "../../../lib/db.js";
import { idBinding, readId } from "../../../lib/ids.js";
import { visibleTo } from "../projects/access.js";
import { projects } from "../projects/store.js";
import type { ReportContext } from "../reports/context.js";
import { byName, lookups } from "../reports/lookups.js";
import type { Periods } from "./rules.js";
import { insightSums, Tally, type InsightKey, type Totals } from "./store.js";

/**
 * The data trends: each client's, project's or user's seconds, billable seconds and earnings per
 * period, in one currency. Every member of the trend is in every period (zeros where it has no
 * time), so that each draws a line across the graph.
 */

export type TrendSubject = "clients" | "projects" | "users";

const KEY: Record<TrendSubject, InsightKey> = { clients: "client", projects: "project", users: "user" };

export interface TrendMember {
  id: bigint;
  name: string;
  /** Projects: their color and currency (the workspace's when they have none). */
  color: string;
  currency: string;
  /** One per period. */
  points: Totals[];
}

export interface TrendOptions {
  currency: string;
  periods: Periods;
  /** The members the body names: shown even without time, when the caller sees them. */
  named?: bigint[];
}

/**
 * The members of the trend, by name: those with time in the range, and the named ones the caller
 * sees (a project they see, in the currency; any client of the workspace; themselves, or any
 * member for admins). Time without client, project or user is in no member.
 */
export async function dataTrends(db: Knex, ctx: ReportContext, subject: TrendSubject, options: TrendOptions): Promise<TrendMember[]> {
  const { periods } = options;
  const sums = await insightSums(db, ctx, { keys: [KEY[subject]], currency: options.currency, keyed: true });
  const tallies = new Map<bigint, Tally[]>();
  const talliesOf = (id: bigint) => {
    let found = tallies.get(id);
    if (!found) tallies.set(id, (found = Array.from({ length: periods.count }, () => new Tally())));
    return found;
  };
  for (const sum of sums) talliesOf(sum.keys[0]!)[periods.indexOf(sum.day)].add(sum);
  for (const id of await namedMembers(db, ctx, subject, options)) talliesOf(id);

  const ids = [...tallies.keys()];
  const live = await lookups(db, ctx.scope.workspaceId, { projects: subject === "projects" ? ids : [], clients: subject === "clients" ? ids : [] });
  const members = ids.map((id): TrendMember => {
    const points = tallies.get(id)!.map((t) => t.totals());
    if (subject === "projects") {
      const project = live.projects.get(id);
      return { id, name: project?.name ?? "", color: project?.color ?? "", currency: project?.currency ?? ctx.currency, points };
    }
    const name = subject === "clients" ? live.clients.get(id)?.name : ctx.people.get(id)?.name;
    return { id, name: name ?? "", color: "", currency: options.currency, points };
  });
  return members.sort(byName((m) => m.name));
}

/** The named members the caller sees, whether or not they have time. */
async function namedMembers(db: Knex, ctx: ReportContext, subject: TrendSubject, options: TrendOptions): Promise<bigint[]> {
  const named = options.named ?? [];
  if (named.length === 0) return [];
  const { scope } = ctx;
  if (subject === "users") return named.filter((id) => ctx.people.has(id) && (scope.admin || id === scope.userId));
  if (subject === "clients") return [...(await lookups(db, scope.workspaceId, { clients: named })).clients.keys()];
  const q = projects.query(db, scope.workspaceId).whereIn("id", named.map(idBinding)).whereNull("server_deleted_at").whereRaw("COALESCE(currency, ?) = ?", [ctx.currency, options.currency]);
  return ((await visibleTo(db, q, scope.viewer).select("id")) as { id: unknown }[]).map((r) => readId(r.id));
}
