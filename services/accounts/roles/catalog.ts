import { ORGANIZATION_ROLES } from "../organizations/rules.js";

/**
 * The time-tracking product's permission catalog and its system roles, declared once. The system
 * roles are what an organization user's admin flag and role are (organizations/rules.ts roleOf):
 * their permissions say what this installation's access declarations grant them, no more. An
 * admin may do everything; every other role may do what a member may (the access declarations
 * know admins and members only, so projectlead and teamlead grant nothing beyond user).
 */

/** The one product of this installation: time tracking. */
export const TRACK_PRODUCT_ID = 1;

/** What a role applies to. */
export const ROLE_ENTITIES = ["organization", "workspace", "project"] as const;
export type RoleEntity = (typeof ROLE_ENTITIES)[number];

export interface PermissionEntry {
  permission_id: number;
  name: string;
  entity: RoleEntity;
  description: string;
}

export const PERMISSIONS: readonly PermissionEntry[] = [
  { permission_id: 1, name: "organization.view", entity: "organization", description: "See the organization, its users and its groups" },
  { permission_id: 2, name: "organization.manage", entity: "organization", description: "Rename the organization, invite, change and remove its users, manage its groups" },
  { permission_id: 3, name: "roles.manage", entity: "organization", description: "Create, change, delete and assign the organization's roles" },
  { permission_id: 4, name: "audit_logs.view", entity: "organization", description: "Read the organization's audit log" },
  { permission_id: 5, name: "workspaces.create", entity: "organization", description: "Create workspaces in the organization" },
  { permission_id: 6, name: "workspace.manage", entity: "workspace", description: "Change the workspace's settings, logo and members" },
  { permission_id: 7, name: "workspace.track", entity: "workspace", description: "Track one's own time in the workspace" },
  { permission_id: 8, name: "projects.create", entity: "workspace", description: "Create projects (unless only admins may)" },
  { permission_id: 9, name: "projects.manage", entity: "project", description: "Change any project, its users, groups and tasks" },
  { permission_id: 10, name: "tags.manage", entity: "workspace", description: "Create and change tags (unless only admins may)" },
  { permission_id: 11, name: "clients.manage", entity: "workspace", description: "Create and change clients" },
  { permission_id: 12, name: "time_entries.manage_others", entity: "workspace", description: "Change other members' time entries" },
  { permission_id: 13, name: "alerts.manage", entity: "workspace", description: "Manage alerts and track reminders" },
];

const MEMBER_PERMISSIONS = [1, 7, 8, 10, 11];

export interface SystemRole {
  role_id: number;
  code: (typeof ORGANIZATION_ROLES)[number];
  name: string;
  description: string;
  permissions: readonly number[];
}

/** The system roles, by the ids the migration reserves (roles rows 1-4, organization NULL). */
export const SYSTEM_ROLES: readonly SystemRole[] = [
  { role_id: 1, code: "admin", name: "Admin", description: "Organization admin: the organization user's admin flag", permissions: PERMISSIONS.map((p) => p.permission_id) },
  { role_id: 2, code: "user", name: "User", description: "Member of the organization", permissions: MEMBER_PERMISSIONS },
  { role_id: 3, code: "projectlead", name: "Project lead", description: "Member of the organization (grants what a member may)", permissions: MEMBER_PERMISSIONS },
  { role_id: 4, code: "teamlead", name: "Team lead", description: "Member of the organization (grants what a member may)", permissions: MEMBER_PERMISSIONS },
];

// ORGANIZATION_ROLES and the system roles are one list: a role added there needs its entry here.
if (ORGANIZATION_ROLES.some((code) => !SYSTEM_ROLES.some((r) => r.code === code))) throw new Error("roles/catalog.ts: a system role of ORGANIZATION_ROLES has no entry");

export const systemRoleById = (id: number) => SYSTEM_ROLES.find((r) => r.role_id === id);
export const systemRoleByCode = (code: string) => SYSTEM_ROLES.find((r) => r.code === code);
export const permissionById = (id: number) => PERMISSIONS.find((p) => p.permission_id === id);
