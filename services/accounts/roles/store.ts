import { idBinding, readId } from "../../../lib/ids.js";
import type { Knex } from "../../../lib/db.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

/** An organization's own role (system roles are rows with no organization; catalog.ts holds them). */
export interface RoleRow {
  id: bigint;
  organization_id: bigint;
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
  organization_id: bigint;
  user_id: bigint;
  role_id: bigint;
  workspace_id: bigint;
  project_id: bigint;
  is_active: boolean;
}

function readUserRole(raw: Record<string, unknown>): UserRoleRow {
  return {
    organization_id: readId(raw.organization_id),
    user_id: readId(raw.user_id),
    role_id: readId(raw.role_id),
    workspace_id: readId(raw.workspace_id),
    project_id: readId(raw.project_id),
    is_active: Boolean(raw.is_active),
  };
}

/** The permission ids of roles, by role id. */
export async function permissionsOf(db: Knex, roleIds: bigint[]): Promise<Map<bigint, number[]>> {
  const out = new Map<bigint, number[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return out;
  const rows: { role_id: unknown; permission_id: unknown }[] = await db("role_permissions").whereIn("role_id", roleIds.map(idBinding)).orderBy(["role_id", "permission_id"]).select("role_id", "permission_id");
  for (const r of rows) out.get(readId(r.role_id))?.push(Number(r.permission_id));
  return out;
}

export async function setPermissions(trx: Knex.Transaction, roleId: bigint, permissionIds: number[]): Promise<void> {
  await trx("role_permissions").where({ role_id: roleId }).delete();
  if (permissionIds.length) await trx("role_permissions").insert(permissionIds.map((permission_id) => ({ role_id: roleId, permission_id })));
}

/** The organization's role of that code, if any. */
export async function roleByCode(db: Knex, organization: bigint, code: string): Promise<RoleRow | undefined> {
  const raw = await roles.query(db, organization).andWhere({ code }).first();
  return raw ? roles.read(raw) : undefined;
}

/** Assignments of the organization's roles to its current users, narrowed by users or roles. */
export async function assignments(db: Knex, organization: bigint, where: { userIds?: bigint[]; roleIds?: bigint[] }): Promise<UserRoleRow[]> {
  const q = db("user_roles as ur")
    .join("organization_users as ou", function () {
      this.on("ou.organization_id", "=", "ur.organization_id").andOn("ou.user_id", "=", "ur.user_id");
    })
    .where("ur.organization_id", idBinding(organization));
  if (where.userIds) q.whereIn("ur.user_id", where.userIds.map(idBinding));
  if (where.roleIds) q.whereIn("ur.role_id", where.roleIds.map(idBinding));
  return (await q.orderBy(["ur.user_id", "ur.role_id", "ur.workspace_id", "ur.project_id"]).select("ur.*")).map(readUserRole);
}

/** Assigns (or re-activates / deactivates) one role of a user. */
export async function assign(trx: Knex.Transaction, row: UserRoleRow, now: Date): Promise<void> {
  const key = { organization_id: row.organization_id, user_id: row.user_id, role_id: row.role_id, workspace_id: row.workspace_id, project_id: row.project_id };
  const updated = await trx("user_roles").where(key).update({ is_active: row.is_active });
  if (updated === 0) await trx("user_roles").insert({ ...key, is_active: row.is_active, created_at: now });
}

export async function unassignRole(trx: Knex.Transaction, organization: bigint, roleId: bigint): Promise<void> {
  await trx("user_roles").where({ organization_id: organization, role_id: roleId }).delete();
}

/** The organization's workspaces among the ids. */
export async function workspaceIdsOf(db: Knex, organization: bigint, ids: bigint[]): Promise<Set<bigint>> {
  if (ids.length === 0) return new Set();
  return new Set((await db("workspaces").where({ organization_id: organization }).whereIn("id", ids.map(idBinding)).pluck("id")).map(readId));
}
