import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

/** An organization's own role (system roles are rows with no organization; catalog.ts holds them). */
export interface RoleRow {
  id: number;
  organization_id: number;
  code: string;
  name: string;
  description: string;
  entity: string;
  created_at: Date;
  updated_at: Date;
}

/** An organization's own roles, each limited to its organization. */
export const roles = new ScopedTable<RoleRow>({
  table: "roles",
  scope: "organization_id",
  columns: { id: "id", organization_id: "id", code: "string", name: "string", description: "string", entity: "string", created_at: "date", updated_at: "date" },
  order: ["lower(name)", "id"],
});

/** One user's role in an organization: 0 for no workspace or project. */
export interface UserRoleRow {
  organization_id: number;
  user_id: number;
  role_id: number;
  workspace_id: number;
  project_id: number;
  is_active: boolean;
}

function readUserRole(raw: Record<string, unknown>): UserRoleRow {
  return {
    organization_id: Number(raw.organization_id),
    user_id: Number(raw.user_id),
    role_id: Number(raw.role_id),
    workspace_id: Number(raw.workspace_id),
    project_id: Number(raw.project_id),
    is_active: Boolean(raw.is_active),
  };
}

/** The permission ids of roles, by role id. */
export async function permissionsOf(db: Knex, roleIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return out;
  const rows: { role_id: unknown; permission_id: unknown }[] = await db("role_permissions").whereIn("role_id", roleIds).orderBy(["role_id", "permission_id"]).select("role_id", "permission_id");
  for (const r of rows) out.get(Number(r.role_id))?.push(Number(r.permission_id));
  return out;
}

export async function setPermissions(trx: Knex.Transaction, roleId: number, permissionIds: number[]): Promise<void> {
  await trx("role_permissions").where({ role_id: roleId }).delete();
  if (permissionIds.length) await trx("role_permissions").insert(permissionIds.map((permission_id) => ({ role_id: roleId, permission_id })));
}

/** The organization's role of that code, if any. */
export async function roleByCode(db: Knex, organization: number, code: string): Promise<RoleRow | undefined> {
  const raw = await roles.query(db, organization).andWhere({ code }).first();
  return raw ? roles.read(raw) : undefined;
}

/** Assignments of the organization's roles to its current users, narrowed by users or roles. */
export async function assignments(db: Knex, organization: number, where: { userIds?: number[]; roleIds?: number[] }): Promise<UserRoleRow[]> {
  const q = db("user_roles as ur")
    .join("organization_users as ou", function () {
      this.on("ou.organization_id", "=", "ur.organization_id").andOn("ou.user_id", "=", "ur.user_id");
    })
    .where("ur.organization_id", organization);
  if (where.userIds) q.whereIn("ur.user_id", where.userIds);
  if (where.roleIds) q.whereIn("ur.role_id", where.roleIds);
  return (await q.orderBy(["ur.user_id", "ur.role_id", "ur.workspace_id", "ur.project_id"]).select("ur.*")).map(readUserRole);
}

/** Assigns (or re-activates / deactivates) one role of a user. */
export async function assign(trx: Knex.Transaction, row: UserRoleRow, now: Date): Promise<void> {
  const key = { organization_id: row.organization_id, user_id: row.user_id, role_id: row.role_id, workspace_id: row.workspace_id, project_id: row.project_id };
  const updated = await trx("user_roles").where(key).update({ is_active: row.is_active });
  if (updated === 0) await trx("user_roles").insert({ ...key, is_active: row.is_active, created_at: now });
}

export async function unassignRole(trx: Knex.Transaction, organization: number, roleId: number): Promise<void> {
  await trx("user_roles").where({ organization_id: organization, role_id: roleId }).delete();
}

/** The organization's workspaces among the ids. */
export async function workspaceIdsOf(db: Knex, organization: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  return new Set((await db("workspaces").where({ organization_id: organization }).whereIn("id", ids).pluck("id")).map(Number));
}
