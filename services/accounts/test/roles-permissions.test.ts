import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization, workspacesOf } from "./organization-support.js";
import { PERMISSIONS, SYSTEM_ROLES } from "../roles/catalog.js";
import { permissionIdInvalid, productInvalid, roleCodeInvalid, roleCodeTaken, roleIdInvalid, roleNotFound, systemRoleAssigned, systemRoleUnchangeable, userIdsMissing } from "../errors.js";
import { NO_ACCESS } from "../../../lib/errors.js";

/** Roles and permissions: the catalog, system roles (the admin flag and role), an organization's own roles and who holds them. */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);

async function organization(prefix: string) {
  const owner = await sys.signup(`${prefix}owner`);
  const organizationId = await ownOrganization(sys, owner);
  const [workspace] = await workspacesOf(db, organizationId);
  const admin = await sys.signup(`${prefix}admin`);
  await addMember(db, organizationId, admin, { admin: true });
  const member = await sys.signup(`${prefix}member`);
  await addMember(db, organizationId, member);
  return { owner, organizationId, workspace, admin, member };
}

const o = await organization("r");
const other = await organization("s");
const as = (user: TrackUser) => ({ auth: user.auth });
const rolesPath = (org = o.organizationId) => `/api/v9/roles/1/${org}`;
const createRole = (body: unknown, user: TrackUser = o.admin, org = o.organizationId) => sys.api("POST", rolesPath(org), { ...as(user), body });

t.test("the permission catalog and the system roles of product 1", async (t) => {
  const permissions = await sys.api("GET", "/api/v9/permissions/1", as(o.member));
  t.equal(permissions.status, 200, permissions.text);
  t.equal(permissions.body.length, PERMISSIONS.length);
  t.same(Object.keys(permissions.body[0]).sort(), ["description", "entity", "name", "permission_id"]);
  const system = await sys.api("GET", "/api/v9/roles/1", as(o.member));
  t.equal(system.status, 200);
  t.same(system.body.map((r: { code: string }) => r.code), ["admin", "user", "projectlead", "teamlead"]);
  t.same(Object.keys(system.body[0]).sort(), ["code", "description", "entity", "name", "organization_id", "permissions", "role_id"]);
  t.equal(system.body[0].organization_id, null, "a system role has no organization");
  t.equal(system.body[0].permissions.length, PERMISSIONS.length, "admin holds every permission");
  for (const path of ["/api/v9/permissions/2", "/api/v9/roles/7"]) {
    const bad = await sys.api("GET", path, as(o.member));
    t.same([bad.status, bad.body], [400, productInvalid().rawMessage], path);
  }
});

t.test("organization roles: create (201), read, update permissions, duplicate, delete", async (t) => {
  const created = await createRole({ code: "auditor", name: " Auditor ", description: "reads the log" });
  t.equal(created.status, 201, created.text);
  t.match(created.body, { code: "auditor", name: "Auditor", entity: "organization", organization_id: o.organizationId, permissions: [] });
  const id = created.body.role_id;
  t.ok(id > SYSTEM_ROLES.length, "after the system roles' ids");

  const taken = await createRole({ code: "auditor", name: "again" });
  t.same([taken.status, taken.body], [409, roleCodeTaken().rawMessage]);
  const system = await createRole({ code: "admin", name: "mine" });
  t.same([system.status, system.body], [409, roleCodeTaken().rawMessage], "a system role's code is taken");
  const badCode = await createRole({ code: "Has Space", name: "x" });
  t.same([badCode.status, badCode.body], [400, roleCodeInvalid().rawMessage]);
  const badEntity = await createRole({ code: "x", name: "x", entity: "planet" });
  t.equal(badEntity.status, 400);
  const otherOrg = await createRole({ code: "auditor", name: "Auditor" }, other.admin, other.organizationId);
  t.equal(otherOrg.status, 201, "codes are per organization");

  const put = await sys.api("PUT", `${rolesPath()}/${id}`, { ...as(o.owner), body: { permissions: [4, 1, 4], description: "log reader" } });
  t.equal(put.status, 200, put.text);
  t.same(put.body.permissions.map((p: { permission_id: number }) => p.permission_id), [1, 4]);
  t.equal(put.body.description, "log reader");
  t.equal(put.body.name, "Auditor", "left out: unchanged");
  const badPermission = await sys.api("PUT", `${rolesPath()}/${id}`, { ...as(o.owner), body: { permissions: [999] } });
  t.same([badPermission.status, badPermission.body], [400, permissionIdInvalid(999).rawMessage]);
  const keep = await sys.api("PUT", `${rolesPath()}/${id}`, { ...as(o.owner), body: { name: "Auditors" } });
  t.equal(keep.body.permissions.length, 2, "permissions left out stay");

  const got = await sys.api("GET", `${rolesPath()}/${id}`, as(o.member));
  t.same(got.body, keep.body, "members read it");
  const list = await sys.api("GET", rolesPath(), as(o.member));
  t.same(list.body.map((r: { code: string }) => r.code), ["admin", "user", "projectlead", "teamlead", "auditor"]);
  const orgList = await sys.api("GET", `/api/v9/organizations/${o.organizationId}/roles`, as(o.member));
  t.same(orgList.body, list.body);

  const found = await sys.api("POST", "/api/v9/roles/1/find", { ...as(o.member), body: { code: "auditor", organization_id: o.organizationId } });
  t.same(found.body, keep.body);
  const foundSystem = await sys.api("POST", "/api/v9/roles/1/find", { ...as(o.member), body: { code: "teamlead" } });
  t.equal(foundSystem.body.role_id, 4);
  const hidden = await sys.api("POST", "/api/v9/roles/1/find", { ...as(other.member), body: { code: "auditor", organization_id: o.organizationId } });
  t.same([hidden.status, hidden.body], [404, roleNotFound().rawMessage], "another organization's roles are not found");
  const missing = await sys.api("POST", "/api/v9/roles/1/find", { ...as(o.member), body: { code: "nobody" } });
  t.equal(missing.status, 404);

  const foreign = await sys.api("GET", `${rolesPath()}/${otherOrg.body.role_id}`, as(o.owner));
  t.same([foreign.status, foreign.body], [400, roleIdInvalid().rawMessage], "another organization's role through this one");
  const foreignPut = await sys.api("PUT", `${rolesPath()}/${otherOrg.body.role_id}`, { ...as(o.owner), body: { name: "mine" } });
  t.equal(foreignPut.status, 400);
  const systemPut = await sys.api("PUT", `${rolesPath()}/1`, { ...as(o.owner), body: { name: "boss" } });
  t.same([systemPut.status, systemPut.body], [400, systemRoleUnchangeable().rawMessage]);

  const dup = await sys.api("POST", `${rolesPath()}/${id}/duplicate`, { ...as(o.admin), body: { code: "auditor-2" } });
  t.equal(dup.status, 201, dup.text);
  t.match(dup.body, { code: "auditor-2", name: "Auditors", organization_id: o.organizationId });
  t.equal(dup.body.permissions.length, 2);
  const dupSystem = await sys.api("POST", `${rolesPath()}/1/duplicate`, { ...as(o.admin), body: { code: "boss" } });
  t.equal(dupSystem.body.permissions.length, PERMISSIONS.length, "a system role may be copied");

  const del = await sys.api("DELETE", `${rolesPath()}/${dup.body.role_id}`, as(o.admin));
  t.same([del.status, del.body], [200, { message: "Role deleted" }]);
  const gone = await sys.api("GET", `${rolesPath()}/${dup.body.role_id}`, as(o.admin));
  t.equal(gone.status, 400);
  const delSystem = await sys.api("DELETE", `${rolesPath()}/2`, as(o.admin));
  t.equal(delSystem.status, 400);

  const memberCreate = await createRole({ code: "nope", name: "nope" }, o.member);
  t.same([memberCreate.status, memberCreate.body], [403, NO_ACCESS], "members do not create");
  const stranger = await sys.api("GET", rolesPath(), as(other.owner));
  t.equal(stranger.status, 403, "another organization's members do not read");
});

t.test("who holds which role: the admin flag is the admin role; own roles are assigned", async (t) => {
  const role = await createRole({ code: "reviewer", name: "Reviewer", entity: "workspace" });
  const orgRole = await createRole({ code: "observer", name: "Observer" });
  const users = await sys.api("POST", `${rolesPath()}/users`, { ...as(o.member), body: { user_ids: [o.owner.id, o.admin.id, o.member.id, other.owner.id] } });
  t.equal(users.status, 201, users.text);
  t.same(users.body, [
    { is_active: true, organization_id: o.organizationId, project_id: null, role_id: 1, user_id: o.owner.id, workspace_id: null },
    { is_active: true, organization_id: o.organizationId, project_id: null, role_id: 1, user_id: o.admin.id, workspace_id: null },
    { is_active: true, organization_id: o.organizationId, project_id: null, role_id: 2, user_id: o.member.id, workspace_id: null },
  ], "system roles from the admin flag; another organization's user is not there");
  const empty = await sys.api("POST", `${rolesPath()}/users`, { ...as(o.member), body: { user_ids: [] } });
  t.same([empty.status, empty.body], [400, userIdsMissing().rawMessage]);

  const assign = (body: unknown, user: TrackUser = o.admin) => sys.api("POST", "/api/v9/users/1/roles", { ...as(user), body });
  const ok = await assign([
    { organization_id: o.organizationId, user_id: o.member.id, role_id: role.body.role_id, workspace_id: o.workspace },
    { organization_id: o.organizationId, user_id: o.member.id, role_id: orgRole.body.role_id, is_active: false },
  ]);
  t.equal(ok.status, 201, ok.text);
  t.same(ok.body[0], { is_active: true, organization_id: o.organizationId, project_id: null, role_id: role.body.role_id, user_id: o.member.id, workspace_id: o.workspace });
  t.equal(ok.body[1].is_active, false);

  const byRole = await sys.api("POST", `/api/v9/users/1/${o.organizationId}/roles`, { ...as(o.member), body: { role_ids: [role.body.role_id, 2] } });
  t.equal(byRole.status, 201, byRole.text);
  t.same(byRole.body.map((r: { user_id: number; role_id: number }) => [r.user_id, r.role_id]), [[o.member.id, 2], [o.member.id, role.body.role_id]]);
  const foreignRole = await sys.api("POST", `/api/v9/users/1/${o.organizationId}/roles`, { ...as(o.member), body: { role_ids: [999999] } });
  t.equal(foreignRole.status, 400);

  const system = await assign([{ organization_id: o.organizationId, user_id: o.member.id, role_id: 1 }]);
  t.same([system.status, system.body], [400, systemRoleAssigned().rawMessage], "the admin role is the admin flag, not an assignment");
  const notAdmin = await assign([{ organization_id: o.organizationId, user_id: o.member.id, role_id: orgRole.body.role_id }], o.member);
  t.same([notAdmin.status, notAdmin.body], [403, NO_ACCESS]);
  const otherOrg = await assign([{ organization_id: other.organizationId, user_id: other.member.id, role_id: orgRole.body.role_id }]);
  t.same([otherOrg.status, otherOrg.body], [403, NO_ACCESS], "another organization's assignments are refused");
  const outsider = await assign([{ organization_id: o.organizationId, user_id: other.member.id, role_id: orgRole.body.role_id }]);
  t.equal(outsider.status, 400, "a user outside the organization");
  const needsWorkspace = await assign([{ organization_id: o.organizationId, user_id: o.member.id, role_id: role.body.role_id }]);
  t.equal(needsWorkspace.status, 400, "a workspace role needs its workspace");
  const none = await assign([]);
  t.equal(none.status, 400);

  // Making the member an admin (the admin flag) makes its system role admin.
  await db("organization_users").where({ organization_id: o.organizationId, user_id: o.member.id }).update({ admin: true });
  const promoted = await sys.api("POST", `${rolesPath()}/users`, { ...as(o.member), body: { user_ids: [o.member.id] } });
  t.equal(promoted.body[0].role_id, 1);
  await db("organization_users").where({ organization_id: o.organizationId, user_id: o.member.id }).update({ admin: false });

  // Deleting a role ends its assignments.
  await sys.api("DELETE", `${rolesPath()}/${role.body.role_id}`, as(o.admin));
  const after = await sys.api("POST", `${rolesPath()}/users`, { ...as(o.member), body: { user_ids: [o.member.id] } });
  t.same(after.body.map((r: { role_id: number }) => r.role_id), [2, orgRole.body.role_id]);
});
