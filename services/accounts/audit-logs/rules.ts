import type { ListAuditLogsRequest } from "../../../gen/accounts/v1/audit_logs_pb.js";
import { findableId } from "../../../lib/ids.js";
import { auditRangeInvalid, auditTimeInvalid } from "../errors.js";
import type { AuditQuery } from "./store.js";

export const DEFAULT_PAGE_SIZE = 50;
/** Rows an export answers at most. */
export const EXPORT_LIMIT = 10_000;

const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;

function time(raw: string, name: "from" | "to"): Date {
  const text = raw.trim();
  const date = RFC3339.test(text) ? new Date(text.replace(" ", "T")) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw auditTimeInvalid(name);
  return date;
}

const idFilter = (id: bigint) => (id === 0n ? undefined : findableId(id));
const textFilter = (raw: string) => (raw.trim() === "" ? undefined : raw.trim());

/** The request's range, filters and page as the store reads them. */
export function auditQuery(organization: bigint, req: ListAuditLogsRequest): AuditQuery {
  const from = time(req.from, "from");
  const to = time(req.to, "to");
  if (from > to) throw auditRangeInvalid();
  const entity = idFilter(req.entityId);
  return {
    organization,
    from,
    to,
    workspaceId: idFilter(req.workspaceId),
    userId: idFilter(req.userId),
    entityId: entity === undefined ? undefined : String(entity),
    entityType: textFilter(req.entityType),
    action: textFilter(req.action),
    page: req.export ? undefined : { size: req.pageSize || DEFAULT_PAGE_SIZE, number: req.pageNumber || 1 },
  };
}
