import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountEvents, accountsDb, addMember, ownOrganization, workspaceUserOf, workspacesOf } from "./organization-support.js";
import { assignmentEmpty, assignmentGroupInvalid, assignmentOperationInvalid, assignmentUserAndGroup, assignmentUserInvalid, assignmentUserOrGroupMissing, assignmentWorkspaceInvalid, organizationAdminNotRemovable, payingUserNotRemovable, workspaceOwnerNotRemovable, workspaceUserIdsMissing, workspaceUserIdsRepeated, wrongWorkspaceUserIds } from "../errors.js";

/** A workspace's members: the members' lists, the organization admins' list, removal and assignments. */

const clock = new ManualClock(new Date());
const sys: TestSystem = await startTestSystem(t, { clock });
const db = await accountsDb(t, sys);
const plan = sys.directory.client("accounts", OrganizationAdminService);

const WORKSPACE_USER_FIELDS = [
  "active", "admin", "at", "avatar_file_name", "email", "group_ids", "id", "inactive", "invitation_code", "invite_url", "is_direct", "labour_cost", "name",
  "organization_admin", "rate", "rate_last_updated", "role", "timezone", "user_id", "working_hours_in_minutes", "workspace_admin", "workspace_id",
];
const SIMPLE_USER_FIELDS = ["email", "fullname", "id", "inactive", "is_active", "is_admin", "role"];

/** An organization: owner Olga, admin Anna, member bob (first workspace only), outsider Oscar (of the organization, no workspace). */
async function organization(prefix: string) {
  const owner = await sys.signup(`${prefix}olga`);
  const organizationId = await ownOrganization(sys, owner);
  const [workspace] = await workspacesOf(db, organizationId);
  const [second] = await db("workspaces").insert({ organization_id: organizationId, name: `${prefix} second`, created_at: new Date(), updated_at: new Date() });
  const anna = await sys.signup(`${prefix}Anna`);
  await addMember(db, organizationId, anna, { admin: true, workspaces: [workspace] });
  const bob = await sys.signup(`${prefix}bob`);
  await addMember(db, organizationId, bob, { workspaces: [workspace] });
  const oscar = await sys.signup(`${prefix}oscar`);
  await addMember(db, organizationId, oscar, { workspaces: [] });
  return { owner, organizationId, workspace, second: Number(second), anna, bob, oscar };
}

const wuId = async (workspaceId: number, user: TrackUser) => Number((await db("workspace_users").where({ workspace_id: workspaceId, user_id: user.id }).first("id")).id);
const memberIds = async (workspaceId: number) => (await db("workspace_users").where({ workspace_id: workspaceId }).orderBy("user_id").pluck("user_id")).map(Number);

const o = await organization("x");
const stranger = await sys.signup("stranger");
const strangerOrganization = await ownOrganization(sys, stranger);
const [strangerWorkspace] = await workspacesOf(db, strangerOrganization);
const orgPath = (org: { organizationId: number }, workspaceId: number, tail: string) => `/api/v9/organizations/${org.organizationId}/workspaces/${workspaceId}/${tail}`;

t.test("GET /workspaces/{id}/workspace_users answers the members with every field, by name", async (t) => {
  const res = await sys.api("GET", `/api/v9/workspaces/${o.workspace}/workspace_users`, { auth: o.bob.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((u: { name: string }) => u.name), ["xAnna", "xbob", "xolga"]);
  for (const u of res.body) t.same(Object.keys(u).sort(), WORKSPACE_USER_FIELDS, u.name);
  const olga = res.body.find((u: { name: string }) => u.name === "xolga");
  t.match(olga, {
    id: await wuId(o.workspace, o.owner),
    user_id: o.owner.id,
    workspace_id: o.workspace,
    email: o.owner.email,
    active: true,
    admin: true,
    workspace_admin: true,
    organization_admin: true,
    inactive: false,
    role: "admin",
    is_direct: true,
    group_ids: [],
    rate: null,
    labour_cost: null,
    working_hours_in_minutes: null,
  });
  t.match(olga.at, /^\d{4}-\d\d-\d\dT/);
  t.match(res.body.find((u: { name: string }) => u.name === "xAnna"), { organization_admin: true, workspace_admin: false, admin: false, role: "user" });
  t.match(res.body.find((u: { name: string }) => u.name === "xbob"), { organization_admin: false, workspace_admin: false, user_id: o.bob.id });
});

t.test("GET /workspaces/{id}/users answers the reference's short shape", async (t) => {
  const res = await sys.api("GET", `/api/v9/workspaces/${o.workspace}/users`, { auth: o.bob.auth });
  t.equal(res.status, 200, res.text);
  for (const u of res.body) t.same(Object.keys(u).sort(), SIMPLE_USER_FIELDS, u.fullname);
  t.same(res.body.find((u: { fullname: string }) => u.fullname === "xolga"), {
    email: o.owner.email, fullname: "xolga", id: o.owner.id, inactive: false, is_active: true, is_admin: true, role: "admin",
  });
  t.same(res.body.map((u: { id: number }) => u.id), [o.anna.id, o.bob.id, o.owner.id]);
});

t.test("the members' lists are for members only", async (t) => {
  for (const tail of ["workspace_users", "users"]) {
    for (const [who, workspaceId] of [[stranger, o.workspace], [o.oscar, o.workspace], [o.bob, o.second], [o.bob, strangerWorkspace], [o.bob, 999999999]] as const) {
      const res = await sys.api("GET", `/api/v9/workspaces/${workspaceId}/${tail}`, { auth: who.auth });
      t.same([res.status, res.body], [403, "Forbidden"], `${tail} ${who.email} ${workspaceId}`);
    }
  }
});

t.test("GET organization workspace users: organization admins, name contains", async (t) => {
  const all = await sys.api("GET", orgPath(o, o.workspace, "workspace_users"), { auth: o.anna.auth });
  t.equal(all.status, 200, all.text);
  t.same(all.body.map((u: { name: string }) => u.name), ["xAnna", "xbob", "xolga"]);
  for (const u of all.body) t.same(Object.keys(u).sort(), WORKSPACE_USER_FIELDS);
  const some = await sys.api("GET", `${orgPath(o, o.workspace, "workspace_users")}?name=BO`, { auth: o.owner.auth });
  t.same(some.body.map((u: { name: string }) => u.name), ["xbob"]);
  const none = await sys.api("GET", `${orgPath(o, o.workspace, "workspace_users")}?name=%25`, { auth: o.owner.auth });
  t.same(none.body, []);
  t.same((await sys.api("GET", orgPath(o, o.second, "workspace_users"), { auth: o.owner.auth })).body, [], "a workspace of no members");
  const member = await sys.api("GET", orgPath(o, o.workspace, "workspace_users"), { auth: o.bob.auth });
  t.same([member.status, member.body], [403, "Forbidden"]);
  const other = await sys.api("GET", orgPath(o, o.workspace, "workspace_users"), { auth: stranger.auth });
  t.same([other.status, other.body], [403, "Forbidden"]);
  const foreign = await sys.api("GET", orgPath(o, strangerWorkspace, "workspace_users"), { auth: o.owner.auth });
  t.equal(foreign.status, 404, "another organization's workspace");
});

t.test("PATCH organization workspace users removes memberships, with deleted events", async (t) => {
  const p = await organization("p");
  const bobWu = await wuId(p.workspace, p.bob);
  const res = await sys.api("PATCH", orgPath(p, p.workspace, "workspace_users"), { auth: p.anna.auth, body: { delete: [bobWu] } });
  t.equal(res.status, 200, res.text);
  t.same(await memberIds(p.workspace), [p.owner.id, p.anna.id].sort((a, b) => a - b));
  t.ok(await db("organization_users").where({ organization_id: p.organizationId, user_id: p.bob.id }).first(), "still of the organization");
  const events = (await accountEvents(db)).filter((e) => e.entity === "workspace_user" && e.action === "deleted" && workspaceUserOf(e).id === BigInt(bobWu));
  t.equal(events.length, 1);
  t.equal(events[0].workspaceId, String(p.workspace));
  t.equal(events[0].userId, BigInt(p.anna.id));
});

t.test("PATCH answers each 400 and removes nothing when one id fails", async (t) => {
  const q = await organization("q");
  const bobWu = await wuId(q.workspace, q.bob);
  const foreignWu = await wuId(strangerWorkspace, stranger);
  const before = await memberIds(q.workspace);
  for (const [body, message] of [
    [{}, workspaceUserIdsMissing().rawMessage],
    [{ delete: [] }, workspaceUserIdsMissing().rawMessage],
    [{ delete: [bobWu, bobWu] }, workspaceUserIdsRepeated().rawMessage],
    [{ delete: [bobWu, foreignWu] }, wrongWorkspaceUserIds().rawMessage],
    [{ delete: [bobWu, 0] }, wrongWorkspaceUserIds().rawMessage],
  ] as const) {
    const res = await sys.api("PATCH", orgPath(q, q.workspace, "workspace_users"), { auth: q.owner.auth, body });
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  for (const who of [q.bob, stranger]) {
    const res = await sys.api("PATCH", orgPath(q, q.workspace, "workspace_users"), { auth: who.auth, body: { delete: [bobWu] } });
    t.same([res.status, res.body], [403, "Forbidden"]);
  }
  const foreign = await sys.api("PATCH", orgPath(q, strangerWorkspace, "workspace_users"), { auth: q.owner.auth, body: { delete: [foreignWu] } });
  t.equal(foreign.status, 403, "another organization's workspace");
  t.same(await memberIds(q.workspace), before, "nobody was removed");
  t.ok(await db("workspace_users").where({ id: foreignWu }).first(), "the other organization's membership stays");
});

t.test("PUT assignments adds and removes a user, with created and deleted events", async (t) => {
  const a = await organization("a");
  const put = (body: unknown, who: TrackUser = a.anna) => sys.api("PUT", orgPath(a, a.second, "assignments"), { auth: who.auth, body });
  const add = await put({ operation: "add", user_id: a.oscar.id });
  t.equal(add.status, 200, add.text);
  t.same(await memberIds(a.second), [a.oscar.id]);
  const row = await db("workspace_users").where({ workspace_id: a.second, user_id: a.oscar.id }).first();
  t.notOk(row.admin);
  t.equal(row.role, "user");
  t.ok(row.active);
  const members = await sys.api("GET", `/api/v9/workspaces/${a.second}/users`, { auth: a.oscar.auth });
  t.equal(members.status, 200, "the new member reads the workspace");
  t.equal((await put({ operation: "add", user_id: a.oscar.id })).status, 200, "adding again changes nothing");
  t.equal((await db("workspace_users").where({ workspace_id: a.second, user_id: a.oscar.id })).length, 1);
  const remove = await put({ operation: "remove", user_id: a.oscar.id });
  t.equal(remove.status, 200, remove.text);
  t.same(await memberIds(a.second), []);
  const events = (await accountEvents(db)).filter((e) => e.entity === "workspace_user" && e.workspaceId === String(a.second) && workspaceUserOf(e).userId === BigInt(a.oscar.id));
  t.same(events.map((e) => e.action), ["created", "deleted"]);
  t.equal(events[0].userId, BigInt(a.anna.id));
});

t.test("PUT assignments adds a group to the workspace and removes it", async (t) => {
  const g = await organization("g");
  const put = (body: unknown, who: TrackUser = g.anna) => sys.api("PUT", orgPath(g, g.second, "assignments"), { auth: who.auth, body });
  const made = await sys.api("POST", `/api/v9/organizations/${g.organizationId}/groups`, { auth: g.owner.auth, body: { name: "Crew", users: [g.bob.id] } });
  t.equal(made.status, 200, made.text);
  const groupId = made.body.group_id;
  const groupsOf = async (workspaceId: number) => (await sys.api("GET", orgPath(g, workspaceId, "groups"), { auth: g.owner.auth })).body.map((x: { group_id: number }) => x.group_id);
  clock.advance(1000);
  const add = await put({ operation: "add", group_id: groupId });
  t.equal(add.status, 200, add.text);
  t.same(await groupsOf(g.second), [groupId]);
  const listed = await sys.api("GET", `/api/v9/organizations/${g.organizationId}/groups`, { auth: g.owner.auth });
  const group = listed.body.find((x: { group_id: number }) => x.group_id === groupId);
  t.same(group.workspaces, [g.second]);
  t.not(group.at, made.body.at, "the group's at moves");
  t.equal((await put({ operation: "add", group_id: groupId })).status, 200, "adding again changes nothing");
  t.equal((await db("group_workspaces").where({ group_id: groupId })).length, 1);
  t.same(await memberIds(g.second), [], "the group's users do not become members");
  const remove = await put({ operation: "remove", group_id: groupId }, g.owner);
  t.equal(remove.status, 200, remove.text);
  t.same(await groupsOf(g.second), []);
  t.equal((await put({ operation: "remove", group_id: groupId })).status, 200, "removing again changes nothing");
  const other = await organization("h");
  const foreign = await sys.api("POST", `/api/v9/organizations/${other.organizationId}/groups`, { auth: other.owner.auth, body: { name: "Theirs" } });
  for (const [body, who] of [[{ operation: "add", group_id: foreign.body.group_id }, "another organization's group"], [{ operation: "remove", group_id: foreign.body.group_id }, "another organization's group"], [{ operation: "add", group_id: 0 }, "no group"]] as const) {
    const res = await put(body);
    t.same([res.status, res.body], [400, assignmentGroupInvalid().rawMessage], who);
  }
  const denied = await put({ operation: "add", group_id: groupId }, g.bob);
  t.same([denied.status, denied.body], [403, "Forbidden"], "a plain member");
  t.same(await groupsOf(g.second), [], "nothing changed");
});

t.test("a user who leaves or is removed from the organization leaves its groups", async (t) => {
  const l = await organization("l");
  const made = await sys.api("POST", `/api/v9/organizations/${l.organizationId}/groups`, { auth: l.owner.auth, body: { name: "Crew", users: [l.bob.id, l.oscar.id, l.anna.id] } });
  t.equal(made.status, 200, made.text);
  const groupId = made.body.group_id;
  const linked = async () => (await db("group_users").where({ group_id: groupId }).orderBy("user_id").pluck("user_id")).map(Number);
  const bobOu = Number((await db("organization_users").where({ organization_id: l.organizationId, user_id: l.bob.id }).first("id")).id);
  const removed = await sys.api("PATCH", `/api/v9/organizations/${l.organizationId}/users`, { auth: l.owner.auth, body: { delete: [bobOu] } });
  t.equal(removed.status, 200, removed.text);
  const left = await sys.api("DELETE", `/api/v9/organizations/${l.organizationId}/users/leave`, { auth: l.oscar.auth });
  t.equal(left.status, 200, left.text);
  t.same(await linked(), [l.anna.id]);
  await addMember(db, l.organizationId, l.bob, { workspaces: [l.workspace] });
  const group = await sys.api("GET", `/api/v9/organizations/${l.organizationId}/groups`, { auth: l.owner.auth });
  t.same(group.body[0].users.map((u: { user_id: number }) => u.user_id), [l.anna.id], "a user who comes back is in no group");
});

t.test("PUT assignments answers each 400 of the real API and changes nothing", async (t) => {
  const b = await organization("b");
  const put = (body: unknown, workspaceId = b.workspace) => sys.api("PUT", orgPath(b, workspaceId, "assignments"), { auth: b.owner.auth, body });
  const before = await memberIds(b.workspace);
  for (const [body, message] of [
    [{}, assignmentEmpty().rawMessage],
    [{ user_id: b.bob.id }, assignmentOperationInvalid().rawMessage],
    [{ operation: "move", user_id: b.bob.id }, assignmentOperationInvalid().rawMessage],
    [{ operation: "add", user_id: b.bob.id, group_id: 1 }, assignmentUserAndGroup().rawMessage],
    [{ operation: "add" }, assignmentUserOrGroupMissing().rawMessage],
    [{ operation: "add", user_id: stranger.id }, assignmentUserInvalid().rawMessage],
    [{ operation: "add", user_id: 0 }, assignmentUserInvalid().rawMessage],
    [{ operation: "remove", user_id: b.owner.id }, workspaceOwnerNotRemovable().rawMessage],
    [{ operation: "remove", user_id: b.anna.id }, organizationAdminNotRemovable().rawMessage],
    [{ operation: "add", group_id: 999999 }, assignmentGroupInvalid().rawMessage],
  ] as const) {
    const res = await put(body);
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  const foreign = await put({ operation: "add", user_id: b.bob.id }, strangerWorkspace);
  t.same([foreign.status, foreign.body], [400, assignmentWorkspaceInvalid().rawMessage]);
  await plan.setOrganizationPlan({ organizationId: BigInt(b.organizationId), paid: true });
  const paying = await put({ operation: "remove", user_id: b.owner.id });
  t.same([paying.status, paying.body], [400, payingUserNotRemovable().rawMessage]);
  t.same(await memberIds(b.workspace), before, "nothing changed");
  t.same(await memberIds(strangerWorkspace), [stranger.id], "the other organization's workspace is untouched");
});

t.test("PUT assignments is for organization admins", async (t) => {
  const c = await organization("c");
  for (const who of [c.bob, stranger]) {
    const res = await sys.api("PUT", orgPath(c, c.second, "assignments"), { auth: who.auth, body: { operation: "add", user_id: c.bob.id } });
    t.same([res.status, res.body], [403, "Forbidden"]);
  }
  t.same(await memberIds(c.second), []);
});
