import type { Knex } from "../../../lib/db.js";
import { compareIds, idBinding, readId } from "../../../lib/ids.js";
import { visibleTo } from "../projects/access.js";
import { projects, type ProjectRow } from "../projects/store.js";
import { dayNumber } from "../reporting.js";
import type { ReportContext } from "../reports/context.js";
import { byName, lookups } from "../reports/lookups.js";
import type { ReportRange } from "../reports/rules.js";
import { daysOf } from "./rules.js";
import { insightSums } from "./store.js";

/**
 * The project trends (Insights API): each project's seconds per day of the range and of a previous
 * period as long, and who tracked on it in the range. Projects with time in either period, and
 * the named ones the caller sees; the most tracked in the range first.
 */

export interface ProjectTrend {
  projectId: bigint;
  /** The project's row (name, creation, state) when it is still there. */
  project?: ProjectRow;
  /** Seconds per day of the range, and of the previous period. */
  current: number[];
  previous: number[];
  /** The users with time on the project in the range, ascending. */
  userIds: bigint[];
}

export async function projectTrends(db: Knex, ctx: ReportContext, previous: ReportRange, named: bigint[] = []): Promise<ProjectTrend[]> {
  const days = daysOf(ctx.range);
  const trends = new Map<bigint, ProjectTrend & { users: Set<bigint> }>();
  const trendOf = (projectId: bigint) => {
    let trend = trends.get(projectId);
    if (!trend) trends.set(projectId, (trend = { projectId, current: Array(days).fill(0), previous: Array(days).fill(0), userIds: [], users: new Set() }));
    return trend;
  };
  const dayIn = (range: ReportRange, day: number) => Math.min(Math.max(day - dayNumber(range.first), 0), days - 1);
  for (const sum of await insightSums(db, ctx, { keys: ["project", "user"], keyed: true })) {
    const trend = trendOf(sum.keys[0]!);
    trend.current[dayIn(ctx.range, sum.day)] += sum.seconds;
    if (sum.seconds > 0) trend.users.add(sum.keys[1]!);
  }
  for (const sum of await insightSums(db, { ...ctx, range: previous }, { keys: ["project"], keyed: true })) {
    trendOf(sum.keys[0]!).previous[dayIn(previous, sum.day)] += sum.seconds;
  }
  if (named.length > 0) {
    const q = projects.query(db, ctx.scope.workspaceId).whereIn("id", named.map(idBinding)).whereNull("server_deleted_at");
    for (const row of (await visibleTo(db, q, ctx.scope.viewer).select("id")) as { id: unknown }[]) trendOf(readId(row.id));
  }
  const live = await lookups(db, ctx.scope.workspaceId, { projects: trends.keys() });
  const out = [...trends.values()].map(({ users, ...trend }) => ({ ...trend, project: live.projects.get(trend.projectId), userIds: [...users].sort(compareIds) }));
  const total = (t: ProjectTrend) => t.current.reduce((a, b) => a + b, 0);
  const names = byName<{ id: bigint; name: string }>((p) => p.name);
  return out.sort((a, b) => total(b) - total(a) || names({ id: a.projectId, name: a.project?.name ?? "" }, { id: b.projectId, name: b.project?.name ?? "" }));
}
