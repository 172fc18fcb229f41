import type { Knex } from "../../../lib/db.js";
import type { ReportContext } from "../reports/context.js";
import { byName, lookups } from "../reports/lookups.js";
import type { Periods } from "./rules.js";
import { insightSums, Tally, type Totals } from "./store.js";

/**
 * Profitability: what time earned (billable seconds at their hourly rates) against what it cost
 * (every second at its user's labour cost on the project, the project users' `labour_cost`), in
 * one currency; per project with a graph per period, and per member.
 */

export interface ProjectProfitability extends Totals {
  projectId: bigint;
  name: string;
  color: string;
  currency: string;
  clientName: string | null;
}

export interface ProjectsProfitability {
  /** One per period: earnings and labour cost. */
  graph: Totals[];
  /** One row per project with time, by name. */
  table: ProjectProfitability[];
}

/** The projects' profitability: time on projects only (time without project is no project's). */
export async function projectsProfitability(db: Knex, ctx: ReportContext, currency: string, periods: Periods): Promise<ProjectsProfitability> {
  const sums = await insightSums(db, ctx, { keys: ["project"], currency, keyed: true });
  const graph = Array.from({ length: periods.count }, () => new Tally());
  const byProject = new Map<bigint, Tally>();
  for (const sum of sums) {
    graph[periods.indexOf(sum.day)].add(sum);
    const id = sum.keys[0]!;
    let tally = byProject.get(id);
    if (!tally) byProject.set(id, (tally = new Tally()));
    tally.add(sum);
  }
  const live = await lookups(db, ctx.scope.workspaceId, { projects: byProject.keys() });
  const table = [...byProject].map(([projectId, tally]): ProjectProfitability => {
    const project = live.projects.get(projectId);
    const client = project?.client_id ? live.clients.get(project.client_id) : undefined;
    return { projectId, name: project?.name ?? "", color: project?.color ?? "", currency: project?.currency ?? ctx.currency, clientName: client?.name ?? null, ...tally.totals() };
  });
  const order = byName<{ id: bigint; name: string }>((p) => p.name);
  table.sort((a, b) => order({ id: a.projectId, name: a.name }, { id: b.projectId, name: b.name }));
  return { graph: graph.map((t) => t.totals()), table };
}

export interface EmployeeProfitability extends Totals {
  userId: bigint;
  name: string;
  email: string;
}

/** Each member's profitability over the range (all their time, with project or without), by name. */
export async function employeesProfitability(db: Knex, ctx: ReportContext, currency: string): Promise<EmployeeProfitability[]> {
  const byUser = new Map<bigint, Tally>();
  for (const sum of await insightSums(db, ctx, { keys: ["user"], currency })) {
    const id = sum.keys[0]!;
    let tally = byUser.get(id);
    if (!tally) byUser.set(id, (tally = new Tally()));
    tally.add(sum);
  }
  const rows = [...byUser].map(([userId, tally]) => {
    const person = ctx.people.get(userId);
    return { id: userId, userId, name: person?.name ?? "", email: person?.email ?? "", ...tally.totals() };
  });
  return rows.sort(byName((r) => r.name)).map(({ id: _, ...row }) => row);
}
