import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { RoleSchema, RoleService, UserRoleSchema, type Role, type UserRole } from "../../../gen/accounts/v1/roles_pb.js";
import { scopeOf } from "../../../lib/access.js";
import type { Knex } from "../../../lib/db.js";
import { noAccess } from "../../../lib/errors.js";
import { compareIds, idBinding, rowId } from "../../../lib/ids.js";
import { changeRow } from "../../../lib/resource-kit.js";
import type { AccountsKit } from "../kit.js";
import { organizationScope, type OrganizationScope } from "../access.js";
import {
  entityRoleOrganizationMissing, entityRolesMissing, entityRoleUserInvalid, entityRoleUserMissing, entityRoleWorkspaceInvalid, organizationRoleScoped,
  permissionsInvalid, ROLE_DELETED, roleAssignmentConflict, roleCodeTaken, roleEntityNeeds, roleIdInvalid, roleIdsMissing, roleNotFound, roleOfIdInvalid, systemRoleAssigned,
  systemRoleUnchangeable, userIdsMissing,
} from "../errors.js";
import { mayAct, roleOf } from "../organizations/rules.js";
import { memberOf, organizationUsers, type OrganizationUserRow } from "../organizations/store.js";
import { ownChange, recordAudit } from "../audit-logs/store.js";
import { PERMISSIONS, permissionById, SYSTEM_ROLES, systemRoleByCode, systemRoleById, type SystemRole } from "./catalog.js";
import { checkProduct, idsGiven, permissionIds, roleCode, roleEntity, roleName } from "./rules.js";
import { assign, assignments, permissionsOf, roleByCode, roles, setPermissions, unassignRole, workspaceIdsOf, type RoleRow, type UserRoleRow } from "./store.js";

const permissionMessages = (ids: readonly number[]) => ids.map((id) => permissionById(id)!).map((p) => ({ permissionId: BigInt(p.permission_id), name: p.name, entity: p.entity, description: p.description }));

function systemRoleMessage(r: SystemRole): Role {
  return create(RoleSchema, { roleId: BigInt(r.role_id), code: r.code, name: r.name, description: r.description, entity: "organization", permissions: permissionMessages(r.permissions) });
}

function roleMessage(r: RoleRow, permissions: readonly number[]): Role {
  return create(RoleSchema, { roleId: r.id, organizationId: r.organization_id, code: r.code, name: r.name, description: r.description, entity: r.entity, permissions: permissionMessages(permissions) });
}

async function roleMessages(db: Knex, rows: RoleRow[]): Promise<Role[]> {
  const permissions = await permissionsOf(db, rows.map((r) => r.id));
  return rows.map((r) => roleMessage(r, permissions.get(r.id) ?? []));
}

/** A role of the organization by id: a system role, or one of its own; anything else is refused. */
async function roleOfOrganization(db: Knex, organization: bigint, id: bigint): Promise<Role> {
  const system = rowId(id) === undefined ? undefined : systemRoleById(Number(id));
  if (system) return systemRoleMessage(system);
  const row = await roles.get(db, organization, id);
  if (!row) throw roleIdInvalid();
  return (await roleMessages(db, [row]))[0];
}

/** The system roles, then the organization's own by name. */
async function rolesOfOrganization(db: Knex, organization: bigint): Promise<Role[]> {
  return [...SYSTEM_ROLES.map(systemRoleMessage), ...(await roleMessages(db, await roles.list(db, organization)))];
}

const userRoleMessage = (r: UserRoleRow): UserRole =>
  create(UserRoleSchema, {
    isActive: r.is_active,
    organizationId: r.organization_id,
    userId: r.user_id,
    roleId: r.role_id,
    workspaceId: r.workspace_id ? r.workspace_id : undefined,
    projectId: r.project_id ? r.project_id : undefined,
  });

/** Each organization user's system role (its admin flag and role), active while it may act there. */
async function systemAssignments(db: Knex, organization: bigint, where: { userIds?: bigint[]; codes?: string[] }): Promise<UserRoleRow[]> {
  const q = organizationUsers.query(db, organization).whereNotNull("user_id");
  if (where.userIds) q.whereIn("user_id", where.userIds.map(idBinding));
  const rows = (await q.orderBy("user_id")).map((raw: Record<string, unknown>) => organizationUsers.read(raw)) as OrganizationUserRow[];
  return rows
    .map((m) => ({ member: m, role: systemRoleByCode(roleOf(m))! }))
    .filter(({ role }) => !where.codes || where.codes.includes(role.code))
    .map(({ member, role }) => ({ organization_id: organization, user_id: member.user_id!, role_id: BigInt(role.role_id), workspace_id: 0n, project_id: 0n, is_active: mayAct(member) }));
}

const byUser = (a: UserRoleRow, b: UserRoleRow) =>
  compareIds(a.user_id, b.user_id) || compareIds(a.role_id, b.role_id) || compareIds(a.workspace_id, b.workspace_id) || compareIds(a.project_id, b.project_id);

/** Roles and permissions (REST): the catalog, system roles, an organization's own roles and who holds them. */
export function roleHandlers({ storage, clock }: AccountsKit) {
  const { db } = storage;

  /** The organization scope, after the product of the path is checked. */
  const scoped = (req: { productId: bigint }, ctx: HandlerContext): OrganizationScope => {
    checkProduct(req.productId);
    return organizationScope(ctx);
  };

  const audit = (trx: Knex.Transaction, scope: OrganizationScope, entityType: string, entityId: bigint, action: string, details?: unknown) =>
    recordAudit(trx, [ownChange({ organization_id: scope.organization.id, workspace_id: null, entity_type: entityType, entity_id: String(entityId), action, user_id: scope.user, occurred_at: clock.now(), details })]);

  return (router: ConnectRouter) => {
    router.service(RoleService, {
      async listPermissions(req) {
        checkProduct(req.productId);
        return { permissions: permissionMessages(PERMISSIONS.map((p) => p.permission_id)) };
      },

      async listSystemRoles(req) {
        checkProduct(req.productId);
        return { roles: SYSTEM_ROLES.map(systemRoleMessage) };
      },

      async findRole(req, ctx) {
        checkProduct(req.productId);
        const code = roleCode(req.code);
        if (req.organizationId === 0n) {
          const system = systemRoleByCode(code);
          if (!system) throw roleNotFound();
          return { role: systemRoleMessage(system) };
        }
        // Another organization's roles do not exist for the caller.
        const organization = rowId(req.organizationId);
        const member = organization === undefined ? undefined : await memberOf(db, organization, scopeOf<bigint>(ctx));
        if (organization === undefined || !member || !mayAct(member)) throw roleNotFound();
        const system = systemRoleByCode(code);
        if (system) return { role: systemRoleMessage(system) };
        const row = await roleByCode(db, organization, code);
        if (!row) throw roleNotFound();
        return { role: (await roleMessages(db, [row]))[0] };
      },

      async listOrganizationRoles(req, ctx) {
        const scope = scoped(req, ctx);
        return { roles: await rolesOfOrganization(db, scope.organization.id) };
      },

      async listRolesOfOrganization(_req, ctx) {
        return { roles: await rolesOfOrganization(db, organizationScope(ctx).organization.id) };
      },

      async createOrganizationRole(req, ctx) {
        const scope = scoped(req, ctx);
        const code = roleCode(req.code);
        const name = roleName(req.name);
        const entity = roleEntity(req.entity);
        if (systemRoleByCode(code)) throw roleCodeTaken();
        const now = clock.now();
        const role = await storage.change(
          async (trx) => {
            const row = await roles.insert(trx, { organization_id: scope.organization.id, code, name, description: req.description.trim(), entity, created_at: now, updated_at: now });
            await audit(trx, scope, "role", row.id, "created", { code, name, entity });
            return roleMessage(row, []);
          },
          { onDuplicate: roleCodeTaken },
        );
        return { role };
      },

      async getOrganizationRole(req, ctx) {
        const scope = scoped(req, ctx);
        return { role: await roleOfOrganization(db, scope.organization.id, req.roleId) };
      },

      async updateOrganizationRole(req, ctx) {
        const scope = scoped(req, ctx);
        if (rowId(req.roleId) !== undefined && systemRoleById(Number(req.roleId))) throw systemRoleUnchangeable();
        const name = req.name === undefined ? undefined : roleName(req.name);
        const entity = req.entity === undefined ? undefined : roleEntity(req.entity);
        let permissions: number[] | undefined;
        if (req.permissions !== undefined) {
          const list = req.permissions.values.map((v) => (v.kind.case === "numberValue" ? v.kind.value : v.kind.case === "nullValue" ? null : NaN));
          if (list.some((v) => v === null || Number.isNaN(v))) throw permissionsInvalid();
          permissions = permissionIds(list as number[]);
        }
        const role = await changeRow(storage, roles, { scope: scope.organization.id, id: req.roleId, missing: roleIdInvalid }, async (existing, trx) => {
          const changes: Partial<RoleRow> = { updated_at: clock.now() };
          if (name !== undefined) changes.name = name;
          if (entity !== undefined) changes.entity = entity;
          if (req.description !== undefined) changes.description = req.description.trim();
          const updated = await roles.update(trx, existing, changes);
          if (permissions) await setPermissions(trx, existing.id, permissions);
          await audit(trx, scope, "role", existing.id, "updated", { name: updated.name, entity: updated.entity, permissions });
          return (await roleMessages(trx, [updated]))[0];
        });
        return { role };
      },

      async deleteOrganizationRole(req, ctx) {
        const scope = scoped(req, ctx);
        if (rowId(req.roleId) !== undefined && systemRoleById(Number(req.roleId))) throw systemRoleUnchangeable();
        await changeRow(storage, roles, { scope: scope.organization.id, id: req.roleId, missing: roleIdInvalid }, async (existing, trx) => {
          await unassignRole(trx, scope.organization.id, existing.id);
          await setPermissions(trx, existing.id, []);
          await roles.delete(trx, existing);
          await audit(trx, scope, "role", existing.id, "deleted", { code: existing.code });
        });
        return { message: ROLE_DELETED };
      },

      async duplicateOrganizationRole(req, ctx) {
        const scope = scoped(req, ctx);
        const code = roleCode(req.code);
        if (systemRoleByCode(code)) throw roleCodeTaken();
        const source = await roleOfOrganization(db, scope.organization.id, req.roleId);
        const now = clock.now();
        const role = await storage.change(
          async (trx) => {
            const row = await roles.insert(trx, { organization_id: scope.organization.id, code, name: source.name, description: source.description, entity: source.entity, created_at: now, updated_at: now });
            const permissions = source.permissions.map((p) => Number(p.permissionId));
            await setPermissions(trx, row.id, permissions);
            await audit(trx, scope, "role", row.id, "created", { code, duplicate_of: source.roleId });
            return roleMessage(row, permissions);
          },
          { onDuplicate: roleCodeTaken },
        );
        return { role };
      },

      async listRolesOfUsers(req, ctx) {
        const scope = scoped(req, ctx);
        if (req.userIds.length === 0) throw userIdsMissing();
        const userIds = idsGiven(req.userIds);
        const organization = scope.organization.id;
        const rows = [...(await systemAssignments(db, organization, { userIds })), ...(await assignments(db, organization, { userIds }))];
        return { userRoles: rows.sort(byUser).map(userRoleMessage) };
      },

      async listUsersOfRoles(req, ctx) {
        const scope = scoped(req, ctx);
        if (req.roleIds.length === 0) throw roleIdsMissing();
        const organization = scope.organization.id;
        const codes: string[] = [];
        const own: bigint[] = [];
        for (const id of req.roleIds) {
          const system = rowId(id) === undefined ? undefined : systemRoleById(Number(id));
          if (system) codes.push(system.code);
          else if (await roles.get(db, organization, id)) own.push(id);
          else throw roleOfIdInvalid(id);
        }
        const rows = [...(codes.length ? await systemAssignments(db, organization, { codes }) : []), ...(own.length ? await assignments(db, organization, { roleIds: own }) : [])];
        return { userRoles: rows.sort(byUser).map(userRoleMessage) };
      },

      async assignRoles(req, ctx) {
        checkProduct(req.productId);
        const caller = scopeOf<bigint>(ctx);
        if (req.roles.length === 0) throw entityRolesMissing();
        const now = clock.now();
        const assigned = await storage.change(
          async (trx) => {
            const rows: UserRoleRow[] = [];
            for (const entry of req.roles) {
              const organization = rowId(entry.organizationId);
              if (entry.organizationId === 0n) throw entityRoleOrganizationMissing();
              // Only an admin of the entry's organization assigns its roles; any other organization is refused alike.
              const admin = organization === undefined ? undefined : await memberOf(trx, organization, caller);
              if (organization === undefined || !admin || !mayAct(admin) || !admin.admin) throw noAccess();
              if (entry.userId === 0n) throw entityRoleUserMissing();
              const user = rowId(entry.userId);
              const member = user === undefined ? undefined : await memberOf(trx, organization, user);
              if (user === undefined || !member) throw entityRoleUserInvalid(Number(entry.userId), organization); // the id as the message has always printed it (a double)
              if (rowId(entry.roleId) !== undefined && systemRoleById(Number(entry.roleId))) throw systemRoleAssigned();
              const role = await roles.get(trx, organization, entry.roleId);
              if (!role) throw roleOfIdInvalid(entry.roleId);
              const workspace = rowId(entry.workspaceId) ?? 0n;
              const project = rowId(entry.projectId) ?? 0n;
              if (role.entity === "organization" && (entry.workspaceId !== 0n || entry.projectId !== 0n)) throw organizationRoleScoped();
              if (role.entity !== "organization" && !workspace) throw roleEntityNeeds(role.entity, "workspace_id");
              if (role.entity === "project" && !project) throw roleEntityNeeds(role.entity, "project_id");
              if (role.entity === "workspace" && entry.projectId !== 0n) throw roleEntityNeeds(role.entity, "no project_id");
              if (workspace && !(await workspaceIdsOf(trx, organization, [workspace])).has(workspace)) throw entityRoleWorkspaceInvalid(workspace, organization);
              const row: UserRoleRow = { organization_id: organization, user_id: user, role_id: role.id, workspace_id: workspace, project_id: project, is_active: entry.isActive ?? true };
              await assign(trx, row, now);
              await recordAudit(trx, [ownChange({ organization_id: organization, workspace_id: workspace || null, entity_type: "user_role", entity_id: String(user), action: "assigned", user_id: caller, occurred_at: now, details: row })]);
              rows.push(row);
            }
            return rows;
          },
          { againOnDuplicate: { attempts: 3, giveUp: roleAssignmentConflict } },
        );
        return { userRoles: assigned.map(userRoleMessage) };
      },
    });
  };
}
