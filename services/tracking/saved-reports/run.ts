import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import type { Knex } from "../../../lib/db.js";
import { decodeMessage, RestInputError } from "../../../lib/rest-json.js";
import { savedReportParamsInvalid, sharedReportTypeMissing } from "../errors.js";
import type { TrackingScope } from "../scope.js";
import { lookups } from "../reports/lookups.js";
import { addDays, dayText, type Dimension } from "../reports/rules.js";
import { knownZone, parseDay } from "../time-entries/rules.js";
import { periodDays, periodOf, REQUEST_OF, reportKindOf, requestParams, type ReportKind } from "./rules.js";
import type { SavedReportRow } from "./store.js";
import type { ReportRequest, ReportRows, ReportRun, ReportRunner, RunPeriod } from "../reports/run.js";

/**
 * Running a saved report: its saved parameters, with a run's own in their place, read as the
 * request of its kind's /reports/api/v3/workspace/... endpoint and answered by the same plain
 * functions (reports/), as the report's owner sees the workspace. The shared report's answer and
 * the scheduled mails both come from here.
 */

export interface RunOptions {
  now: Date;
  period?: RunPeriod;
}

/** The request of a kind from JSON parameters; what its report could not read is 400. */
function requestOf<K extends ReportKind>(kind: K, params: JsonObject, workspace: bigint) {
  try {
    const plain = decodeMessage(REQUEST_OF[kind], params, "params");
    return create(REQUEST_OF[kind], { ...(plain as MessageInitShape<(typeof REQUEST_OF)[K]>), workspaceId: workspace });
  } catch (err) {
    if (err instanceof RestInputError) throw savedReportParamsInvalid(err.message);
    throw err;
  }
}

/** Whole days: a range set by the run has no times of day (under either name the request reads). */
const NO_TIMES = { start_time: null, end_time: null, startTime: null, endTime: null };

/**
 * The parameters a run reads: the saved ones, with the range its dates call for (a scheduled
 * period; a relative period when the dates are not fixed and the run names no start), then the
 * run's own fields in their place.
 */
async function runParams(identity: Client<typeof IdentityService>, row: SavedReportRow, kind: ReportKind, overrides: JsonObject, options: RunOptions): Promise<JsonObject> {
  const params = requestParams(row.params);
  if (options.period) {
    const { firstDay, lastDay } = options.period;
    // The weekly report spans seven days: the week that ends with the period.
    const last = parseDay(lastDay)!;
    const startDate = kind === "weekly" ? dayText(addDays(last, -6)) : firstDay;
    return { ...params, start_date: startDate, end_date: lastDay, ...NO_TIMES, ...overrides };
  }
  if (!row.fixed_daterange && overrides.start_date === undefined) {
    const period = periodOf(row.params, kind);
    const profile = await identity.getUserProfile({ userId: row.user_id });
    const days = periodDays(period, options.now, knownZone(profile.timezone), profile.beginningOfWeek);
    return { ...params, start_date: days.startDate, end_date: days.endDate, ...NO_TIMES, ...overrides };
  }
  // The weekly report is always seven days: a start of the body's own moves its end along.
  const own: JsonObject = kind === "weekly" && overrides.start_date !== undefined && overrides.end_date === undefined ? { end_date: null, endDate: null } : {};
  return { ...params, ...own, ...overrides };
}

/**
 * Runs a saved report as `scope` (its owner's) sees the workspace, by `run` (with its totals, or
 * without them for a CSV file). Calls the accounts service (the workspace's members, the owner's
 * profile): never inside a transaction.
 */
export async function runSavedReport<R extends ReportRows>(
  db: Knex,
  identity: Client<typeof IdentityService>,
  scope: TrackingScope,
  row: SavedReportRow,
  overrides: JsonObject,
  options: RunOptions,
  run: ReportRunner<R>,
): Promise<R> {
  const kind = reportKindOf(row.params);
  if (!kind) throw sharedReportTypeMissing();
  const params = await runParams(identity, row, kind, overrides, options);
  const request = (kind === "summary"
    ? { kind, req: requestOf("summary", params, row.workspace_id) }
    : kind === "detailed"
      ? { kind, req: requestOf("detailed", params, row.workspace_id) }
      : { kind, req: requestOf("weekly", params, row.workspace_id) }) as ReportRequest;
  return run(db, identity, scope, request, options.period);
}

/** What a run's results name, by id: what the shared report's dictionaries answer. */
export interface RunNames {
  users: Map<bigint, string>;
  projects: Map<bigint, { name: string; color: string; clientId: bigint | null; currency: string | null }>;
  clients: Map<bigint, string>;
  tasks: Map<bigint, { name: string; projectId: bigint }>;
  tags: Map<bigint, string>;
}

/** The ids of a summary's groups and sub-groups, by the dimension they are of. */
function summaryIds(run: ReportRun, add: (dimension: Dimension, ids: Iterable<bigint | null>) => void): void {
  const { grouping, subGrouping, groups } = run.summary!;
  for (const g of groups) {
    add(grouping, g.tagIds ?? [g.id]);
    add(subGrouping, g.subGroups.map((s) => s.id));
  }
}

/** Names of what the results refer to (read once, by id, from the workspace's tables and the members the context holds). */
export async function runNames(db: Knex, run: ReportRun): Promise<RunNames> {
  const ids: Record<Dimension, Set<bigint>> = { projects: new Set(), clients: new Set(), users: new Set(), tags: new Set(), tasks: new Set(), time_entries: new Set() };
  const add = (dimension: Dimension, values: Iterable<bigint | null>) => {
    for (const id of values) if (id !== null) ids[dimension].add(id);
  };
  if (run.summary) summaryIds(run, add);
  for (const row of run.detailed?.page.rows ?? []) {
    add("users", [row.userId]);
    add("projects", [row.projectId]);
    add("tasks", [row.taskId]);
    add("tags", row.tagIds);
  }
  for (const row of run.weekly ?? []) {
    add("users", [row.userId]);
    add("projects", [row.projectId]);
  }
  const found = await lookups(db, run.ctx.scope.workspaceId, { projects: ids.projects, clients: ids.clients, tasks: ids.tasks, tags: ids.tags });
  const users = new Map<bigint, string>();
  for (const id of ids.users) users.set(id, run.ctx.people.get(id)?.name ?? "");
  return {
    users,
    projects: new Map([...found.projects.values()].map((p) => [p.id, { name: p.name, color: p.color, clientId: p.client_id, currency: p.currency }])),
    clients: new Map([...found.clients.values()].map((c) => [c.id, c.name])),
    tasks: new Map([...found.tasks.values()].map((t) => [t.id, { name: t.name, projectId: t.project_id }])),
    tags: new Map([...found.tags.values()].map((t) => [t.id, t.name])),
  };
}
