import { create } from "@bufbuild/protobuf";
import { ProjectPeriodSchema, ProjectSchema, RecurringProjectParametersSchema, type Project } from "../../../gen/tracking/v1/projects_pb.js";
import type { Knex } from "../../../lib/db.js";
import { timestampOf } from "../../../lib/timestamps.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import { actualSeconds } from "../time-entries/project-link.js";
import { currentPeriod, dayOf, projectStatus } from "./rules.js";
import type { ProjectRow } from "./store.js";

const big = (n: number | null) => (n === null ? undefined : BigInt(n));

/** A project as answered: `actual` is its tracked seconds, `today` decides its status, `pinned` whether the caller pinned it. */
export function projectMessage(row: ProjectRow, actual: number | undefined, today: string, pinned = false): Project {
  const recurring = row.recurring && row.recurring_parameters ? row.recurring_parameters : null;
  const period = recurring ? currentPeriod(recurring, today) : undefined;
  // A literal of every field (pages of up to 200 projects are answered): what create() would make.
  return {
    $typeName: "tracking.v1.Project",
    id: row.id,
    workspaceId: row.workspace_id,
    wid: row.workspace_id,
    clientId: row.client_id ?? undefined,
    cid: row.client_id ?? undefined,
    name: row.name,
    isPrivate: row.is_private,
    active: row.active,
    at: timestampOf(row.at),
    createdAt: timestampOf(row.created_at),
    serverDeletedAt: row.server_deleted_at ? timestampOf(row.server_deleted_at) : undefined,
    color: row.color,
    billable: row.billable ?? undefined,
    template: row.template,
    autoEstimates: row.auto_estimates ?? undefined,
    estimatedHours: row.estimated_seconds === null ? undefined : BigInt(Math.floor(row.estimated_seconds / 3600)),
    estimatedSeconds: big(row.estimated_seconds),
    rate: row.rate ?? undefined,
    rateLastUpdated: row.rate_last_updated ? timestampOf(row.rate_last_updated) : undefined,
    currency: row.currency ?? undefined,
    recurring: row.recurring,
    templateId: row.template_id ?? undefined,
    recurringParameters: recurring
      ? [
          create(RecurringProjectParametersSchema, {
            customPeriod: big(recurring.custom_period),
            estimatedSeconds: big(row.estimated_seconds),
            parameterEndDate: undefined,
            parameterStartDate: recurring.project_start_date,
            period: recurring.period,
            projectStartDate: recurring.project_start_date,
          }),
        ]
      : [],
    currentPeriod: period ? create(ProjectPeriodSchema, { startDate: period.start, endDate: period.end }) : undefined,
    fixedFee: row.fixed_fee ?? undefined,
    actualHours: actual === undefined ? undefined : BigInt(Math.floor(actual / 3600)),
    actualSeconds: actual === undefined ? undefined : BigInt(actual),
    startDate: row.start_date,
    endDate: row.end_date ?? undefined,
    status: projectStatus(row, today),
    permissions: undefined,
    isShared: false,
    pinned,
  };
}

/**
 * The projects as answered, their tracked time read in one query per workspace; `pinned` holds the
 * ids the caller pinned (none when left out: events and lists that answer no one's pins).
 */
export async function projectMessages(db: Knex, rows: ProjectRow[], now: Date, pinned?: ReadonlySet<bigint>): Promise<Project[]> {
  const byWorkspace = new Map<bigint, bigint[]>();
  for (const row of rows) {
    const ids = byWorkspace.get(row.workspace_id);
    if (ids) ids.push(row.id);
    else byWorkspace.set(row.workspace_id, [row.id]);
  }
  const actual = new Map<bigint, number>();
  for (const [workspace, ids] of byWorkspace) for (const [id, seconds] of await actualSeconds(db, workspace, ids)) actual.set(id, seconds);
  const today = dayOf(now);
  return rows.map((row) => projectMessage(row, actual.get(row.id), today, pinned?.has(row.id) ?? false));
}

/** The event of a project's change, carrying the project as it stands. */
export async function projectEvent(db: Knex, action: EntityAction, row: ProjectRow, scope: Pick<WorkspaceScope, "workspaceId" | "userId">, now: Date) {
  const [message] = await projectMessages(db, [row], now);
  return entityEvent({ entity: "project", action, schema: ProjectSchema, message, workspaceId: scope.workspaceId, userId: scope.userId });
}
