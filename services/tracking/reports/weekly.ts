import type { Knex } from "../../../lib/db.js";
import { readId, readIdOrNull } from "../../../lib/ids.js";
import { amountInCents, centsOf, dayNumber, offsetSpans } from "../reporting.js";
import type { ReportContext } from "./context.js";
import { selectAs, flag, rateSql, reportEntries, secondsSql } from "./filters.js";
import { localDaySql } from "../reporting.js";
import { byName, lookups } from "./lookups.js";
import { WEEK_DAYS } from "./rules.js";

/**
 * The weekly report: seven days from start_date, one row per user and project, each day's seconds,
 * billable seconds and amounts. Summed in SQL per user, project, local day, rate and billable flag.
 */

export interface WeeklyRow {
  userId: bigint;
  userName: string;
  projectId: bigint | null;
  projectName: string | null;
  clientName: string | null;
  projectColor: string | null;
  /** Seven values each, from start_date. */
  seconds: number[];
  billableSeconds: number[];
  amountsInCents: number[];
  /** The row's hourly rate: the rate of most of its billable time (one rate unless tasks have their own). */
  hourlyRateInCents: number;
}

export async function weeklyRows(db: Knex, ctx: ReportContext): Promise<WeeklyRow[]> {
  const spans = offsetSpans(ctx.range.from, ctx.range.to, ctx.zone);
  const sums: Record<string, unknown>[] = await reportEntries(db, ctx)
    .select(selectAs(db, "te.user_id", "w_user"), selectAs(db, "te.project_id", "w_project"), selectAs(db, localDaySql(db, spans), "local_day"), selectAs(db, rateSql(ctx), "hourly_rate"), selectAs(db, "te.billable", "is_billable"), selectAs(db, `SUM(${secondsSql(ctx.rounding)})`, "seconds"))
    .groupBy("w_user", "w_project", "local_day", "hourly_rate", "is_billable");
  const first = dayNumber(ctx.range.first);
  const rows = new Map<string, WeeklyRow & { rateSeconds: Map<number, number>; dayRates: { seconds: number; rateInCents: number }[][] }>();
  for (const raw of sums) {
    const userId = readId(raw.w_user);
    const projectId = readIdOrNull(raw.w_project);
    const key = `${userId}|${projectId}`;
    let row = rows.get(key);
    if (!row) {
      const zeros = () => Array<number>(WEEK_DAYS).fill(0);
      row = { userId, userName: "", projectId, projectName: null, clientName: null, projectColor: null, seconds: zeros(), billableSeconds: zeros(), amountsInCents: zeros(), hourlyRateInCents: 0, rateSeconds: new Map(), dayRates: Array.from({ length: WEEK_DAYS }, () => []) };
      rows.set(key, row);
    }
    const day = Math.min(Math.max(Number(raw.local_day) - first, 0), WEEK_DAYS - 1);
    const seconds = Number(raw.seconds);
    const cents = centsOf(Number(raw.hourly_rate));
    row.seconds[day] += seconds;
    if (flag(raw.is_billable)) {
      row.billableSeconds[day] += seconds;
      row.rateSeconds.set(cents, (row.rateSeconds.get(cents) ?? 0) + seconds);
      row.dayRates[day].push({ seconds, rateInCents: cents });
    } else if (!row.rateSeconds.has(cents)) row.rateSeconds.set(cents, 0);
  }
  const live = await lookups(db, ctx.scope.workspaceId, { projects: [...rows.values()].map((r) => r.projectId) });
  const out = [...rows.values()].map(({ rateSeconds, dayRates, ...row }) => {
    const project = row.projectId === null ? undefined : live.projects.get(row.projectId);
    const client = project?.client_id ? live.clients.get(project.client_id) : undefined;
    const [rate] = [...rateSeconds].sort(([ca, a], [cb, b]) => b - a || ca - cb)[0] ?? [0];
    return {
      ...row,
      userName: ctx.people.get(row.userId)?.name ?? "",
      projectName: project?.name ?? null,
      clientName: client?.name ?? null,
      projectColor: project?.color ?? null,
      hourlyRateInCents: rate,
      amountsInCents: dayRates.map((parts) => amountInCents(parts)),
    };
  });
  // By user, then project, by name; time without project last.
  const byProject = byName<{ id: bigint | null; name: string | null }>((p) => p.name ?? undefined);
  out.sort((a, b) => {
    const users = byName<{ id: bigint; name: string }>((u) => u.name)({ id: a.userId, name: a.userName }, { id: b.userId, name: b.userName });
    return users || byProject({ id: a.projectId, name: a.projectName }, { id: b.projectId, name: b.projectName });
  });
  return out;
}
