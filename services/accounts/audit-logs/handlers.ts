import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AuditLogSchema, AuditLogService, type AuditLog } from "../../../gen/accounts/v1/audit_logs_pb.js";
import type { AccountsKit } from "../kit.js";
import { organizationScope } from "../access.js";
import { auditQuery, EXPORT_LIMIT } from "./rules.js";
import { auditPage, type AuditRow } from "./store.js";

function details(raw: string | null): JsonValue {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return null;
  }
}

function auditMessage(row: AuditRow): AuditLog {
  const entity = /^\d{1,16}$/.test(row.entity_id) ? BigInt(row.entity_id) : undefined;
  return create(AuditLogSchema, {
    id: row.id,
    organizationId: row.organization_id,
    workspaceId: row.workspace_id === null ? undefined : row.workspace_id,
    source: row.source,
    entityType: row.entity_type,
    entityId: entity,
    action: row.action,
    userId: row.user_id === null ? undefined : row.user_id,
    createdAt: timestampFromDate(row.occurred_at),
    details: fromJson(ValueSchema, details(row.details)),
  });
}

/** An organization's audit log (REST, organization admins). */
export function auditLogHandlers({ storage }: AccountsKit) {
  const { db } = storage;
  return (router: ConnectRouter) => {
    router.service(AuditLogService, {
      async listAuditLogs(req, ctx) {
        const scope = organizationScope(ctx);
        const rows = await auditPage(db, auditQuery(scope.organization.id, req), EXPORT_LIMIT);
        return { auditLogs: rows.map(auditMessage) };
      },
    });
  };
}
