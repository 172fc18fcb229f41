import type { Knex } from "../../../lib/db.js";
import { dbDate } from "../../../lib/db.js";
import { idBinding, jsonIds, readId, readIdOrNull, sortableId } from "../../../lib/ids.js";

/** One audit row: who (user_id) did what (action) to which entity, where, when. */
export interface AuditRow {
  id: bigint;
  event_id: string;
  organization_id: bigint;
  workspace_id: bigint | null;
  /** The service whose change it was: accounts or tracking. */
  source: string;
  entity_type: string;
  entity_id: string;
  action: string;
  user_id: bigint | null;
  occurred_at: Date;
  /** The entity as the change left it (JSON), when the change carried it. */
  details: string | null;
}

export type NewAuditRow = Omit<AuditRow, "id">;

/** Records rows; an event already recorded (redelivered) is kept once. */
export async function recordAudit(db: Knex, rows: NewAuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db("audit_logs").insert(rows).onConflict("event_id").ignore();
}

/** An accounts change without an event of the stream (roles, images): its row, in the change's transaction. */
export function ownChange(init: Omit<NewAuditRow, "event_id" | "source" | "details"> & { details?: unknown }): NewAuditRow {
  const { details, ...rest } = init;
  return { ...rest, event_id: `acc_${sortableId(init.occurred_at.getTime())}`, source: "accounts", details: details === undefined ? null : JSON.stringify(details, jsonIds) };
}

export interface AuditQuery {
  organization: bigint;
  from: Date;
  to: Date;
  workspaceId?: bigint;
  entityType?: string;
  entityId?: string;
  action?: string;
  userId?: bigint;
  /** Undefined: every row (export). */
  page?: { size: number; number: number };
}

function read(raw: Record<string, unknown>): AuditRow {
  return {
    id: readId(raw.id),
    event_id: String(raw.event_id),
    organization_id: readId(raw.organization_id),
    workspace_id: readIdOrNull(raw.workspace_id),
    source: String(raw.source),
    entity_type: String(raw.entity_type),
    entity_id: String(raw.entity_id),
    action: String(raw.action),
    user_id: readIdOrNull(raw.user_id),
    occurred_at: dbDate(raw.occurred_at as Date),
    details: raw.details === null ? null : String(raw.details),
  };
}

/** The organization's rows in [from, to], newest first, narrowed and paged as asked. */
export async function auditPage(db: Knex, q: AuditQuery, limit: number): Promise<AuditRow[]> {
  const query = db("audit_logs").where("organization_id", idBinding(q.organization)).andWhere("occurred_at", ">=", q.from).andWhere("occurred_at", "<=", q.to);
  if (q.workspaceId !== undefined) query.andWhere("workspace_id", idBinding(q.workspaceId));
  if (q.entityType !== undefined) query.andWhere("entity_type", q.entityType);
  if (q.entityId !== undefined) query.andWhere("entity_id", q.entityId);
  if (q.action !== undefined) query.andWhere("action", q.action);
  if (q.userId !== undefined) query.andWhere("user_id", idBinding(q.userId));
  query.orderBy([{ column: "occurred_at", order: "desc" }, { column: "id", order: "desc" }]);
  if (q.page) query.limit(q.page.size).offset((q.page.number - 1) * q.page.size);
  else query.limit(limit);
  return (await query).map(read);
}
