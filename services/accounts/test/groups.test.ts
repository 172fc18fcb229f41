import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization, workspacesOf } from "./organization-support.js";
import { groupNameMissing, groupNameTaken, groupNotFound, groupWorkspaceFilterInvalid, invalidJson, patchOperationInvalid, patchPathInvalid, queryValueInvalid, resourceNotFound } from "../errors.js";

/** An organization's groups: CRUD, PATCH, the workspaces' lists, the organization users' groups. */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);

async function organization(prefix: string) {
  const owner = await sys.signup(`${prefix}Olga`);
  const organizationId = await ownOrganization(sys, owner);
  const [firstWorkspace] = await workspacesOf(db, organizationId);
  const [second] = await db("workspaces").insert({ organization_id: organizationId, name: `${prefix} second`, created_at: new Date(), updated_at: new Date() });
  const secondWorkspace = Number(second);
  const admin = await sys.signup(`${prefix}Anna`);
  await addMember(db, organizationId, admin, { admin: true });
  const member = await sys.signup(`${prefix}bob`);
  await addMember(db, organizationId, member, { workspaces: [firstWorkspace] });
  const invited = await sys.signup(`${prefix}dave`);
  await addMember(db, organizationId, invited, { joined: false, workspaces: [] });
  return { owner, organizationId, firstWorkspace, secondWorkspace, admin, member, invited };
}

const o = await organization("g");
const other = await organization("h");
const stranger = await sys.signup("stranger");
const groupsPath = (org = o.organizationId) => `/api/v9/organizations/${org}/groups`;
const groupPath = (id: number, org = o.organizationId) => `${groupsPath(org)}/${id}`;
const as = (user: TrackUser) => ({ auth: user.auth });
const create = (body: unknown, user: TrackUser = o.owner, org = o.organizationId) => sys.api("POST", groupsPath(org), { ...as(user), body });
const counts = async () => ({
  groups: Number((await db("groups").count({ n: "*" }))[0].n),
  users: Number((await db("group_users").count({ n: "*" }))[0].n),
  workspaces: Number((await db("group_workspaces").count({ n: "*" }))[0].n),
});

t.test("create answers the group field for field; list, update and delete", async (t) => {
  const res = await create({ name: "  Designers ", users: [o.member.id, o.invited.id, o.member.id], workspaces: [o.secondWorkspace] });
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ["at", "group_id", "name", "users", "workspaces"]);
  t.equal(res.body.name, "Designers", "trimmed");
  t.type(res.body.group_id, "number");
  t.match(res.body.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  t.same(res.body.users, [
    { avatar_url: "", joined: true, name: "gbob", user_id: o.member.id },
    { avatar_url: "", joined: false, name: "gdave", user_id: o.invited.id },
  ]);
  t.same(res.body.workspaces, [o.secondWorkspace]);
  const id = res.body.group_id;

  const b = await create({ name: "admins" }, o.admin);
  t.equal(b.status, 200, "an organization admin creates");
  t.same(b.body.users, []);
  t.same(b.body.workspaces, []);

  const all = await sys.api("GET", groupsPath(), as(o.member));
  t.equal(all.status, 200, "a member reads");
  t.same(all.body.map((g: { name: string }) => g.name), ["admins", "Designers"], "by name, ignoring case");
  t.same(all.body[1], res.body);
  const named = await sys.api("GET", `${groupsPath()}?name=SIGN`, as(o.member));
  t.same(named.body.map((g: { name: string }) => g.name), ["Designers"]);
  const assigned = await sys.api("GET", `${groupsPath()}?workspace=${o.secondWorkspace}`, as(o.owner));
  t.same(assigned.body.map((g: { name: string }) => g.name), ["Designers"]);
  const none = await sys.api("GET", `${groupsPath()}?workspace=${o.firstWorkspace}`, as(o.owner));
  t.same(none.body, []);
  const bad = await sys.api("GET", `${groupsPath()}?workspace=abc`, as(o.owner));
  t.equal(bad.status, 400);
  t.equal(bad.body, groupWorkspaceFilterInvalid().rawMessage);

  const put = await sys.api("PUT", groupPath(id), { ...as(o.admin), body: { name: "Design", users: [o.owner.id], workspaces: [o.firstWorkspace, o.secondWorkspace] } });
  t.equal(put.status, 200, put.text);
  t.same(put.body.users, [{ avatar_url: "", joined: true, name: "gOlga", user_id: o.owner.id }]);
  t.same(put.body.workspaces, [o.firstWorkspace, o.secondWorkspace]);
  t.equal(put.body.name, "Design");
  const same = await sys.api("PUT", groupPath(id), { ...as(o.admin), body: { name: "design" } });
  t.equal(same.status, 200, "its own name (another case) is no conflict");
  t.same(same.body.users, [], "the body replaces users and workspaces");

  const del = await sys.api("DELETE", groupPath(id), as(o.owner));
  t.equal(del.status, 200, del.text);
  t.equal((await sys.api("DELETE", groupPath(id), as(o.owner))).status, 404);
  t.same((await sys.api("GET", groupsPath(), as(o.owner))).body.map((g: { name: string }) => g.name), ["admins"]);
  t.equal(Number((await db("group_users").where({ group_id: id }).count({ n: "*" }))[0].n), 0, "links gone with the group");
  await sys.api("DELETE", groupPath(b.body.group_id), as(o.owner));
});

t.test("each error row of create and edit; a failed change leaves nothing", async (t) => {
  const before = await counts();
  const cases: [unknown, string][] = [
    [{ name: "" }, groupNameMissing().rawMessage],
    [{ name: "   " }, groupNameMissing().rawMessage],
    [{}, groupNameMissing().rawMessage],
    [{ name: "x".repeat(201) }, "Group name too long, maximum length is 200"],
    [{ name: "ok", users: [stranger.id] }, `User ${stranger.id} not exists in the organization ${o.organizationId}`],
    [{ name: "ok", users: [other.member.id] }, `User ${other.member.id} not exists in the organization ${o.organizationId}`],
    [{ name: "ok", users: [o.member.id], workspaces: [other.firstWorkspace] }, `Workspace ${other.firstWorkspace} not exists in the organization ${o.organizationId}`],
  ];
  for (const [body, message] of cases) {
    const res = await create(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  t.equal((await sys.api("POST", groupsPath(), { ...as(o.owner), rawBody: "{not json", headers: { "content-type": "application/json" } })).status, 400, "invalid JSON");
  t.same(await counts(), before, "nothing stored");
  t.equal((await create({ name: "y".repeat(200) })).status, 200, "200 characters are fine");

  const first = await create({ name: "Team" });
  const taken = await create({ name: "team", users: [o.member.id] });
  t.equal(taken.status, 400);
  t.equal(taken.body, groupNameTaken().rawMessage);
  t.equal((await create({ name: "Team" }, other.owner, other.organizationId)).status, 200, "another organization may use the name");
  const second = await create({ name: "Other" });
  const rename = await sys.api("PUT", groupPath(second.body.group_id), { ...as(o.owner), body: { name: "TEAM" } });
  t.equal(rename.status, 400);
  t.equal(rename.body, groupNameTaken().rawMessage);
  const badUser = await sys.api("PUT", groupPath(first.body.group_id), { ...as(o.owner), body: { name: "Renamed", users: [stranger.id] } });
  t.equal(badUser.status, 400);
  const after = (await sys.api("GET", groupsPath(), as(o.owner))).body.map((g: { name: string }) => g.name);
  t.ok(after.includes("Team") && !after.includes("Renamed"), "a failed edit changes nothing");
  for (const [method, body] of [["PUT", { name: "z" }], ["DELETE", undefined], ["PATCH", []]] as const) {
    for (const id of [999999999, 0]) {
      const res = await sys.api(method, groupPath(id), { ...as(o.owner), body });
      t.equal(res.status, 404, `${method} ${id}`);
      t.equal(res.body, groupNotFound().rawMessage);
    }
  }
  const foreign = (await create({ name: "theirs" }, other.owner, other.organizationId)).body.group_id;
  for (const [method, body] of [["PUT", { name: "mine" }], ["DELETE", undefined], ["PATCH", []]] as const) {
    const res = await sys.api(method, groupPath(foreign), { ...as(o.owner), body });
    t.equal(res.status, 404, `${method} another organization's group through this one`);
  }
  t.equal((await sys.api("GET", groupsPath(other.organizationId), as(other.owner))).body.filter((g: { name: string }) => g.name === "theirs").length, 1);
  t.notOk((await sys.api("GET", groupsPath(), as(o.owner))).body.some((g: { name: string }) => g.name === "theirs"), "isolated");
});

t.test("roles: organization admins write, members read, strangers nothing", async (t) => {
  const group = (await create({ name: "Roles" })).body.group_id;
  for (const user of [o.member, stranger, other.owner]) {
    for (const [method, path, body] of [
      ["POST", groupsPath(), { name: "nope" }],
      ["PUT", groupPath(group), { name: "nope" }],
      ["DELETE", groupPath(group), undefined],
      ["PATCH", groupPath(group), [{ op: "add", path: "/users", value: [o.member.id] }]],
    ] as const) {
      const res = await sys.api(method, path, { ...as(user), body });
      t.equal(res.status, 403, `${method} by ${user.email}`);
    }
  }
  t.equal((await sys.api("GET", groupsPath(), as(o.member))).status, 200);
  t.equal((await sys.api("GET", groupsPath(), as(stranger))).status, 403);
  t.equal((await sys.api("GET", groupsPath(), as(o.invited))).status, 403, "an invited user is no member yet");
  t.equal((await sys.api("GET", `/api/v9/organizations/${o.organizationId}/workspaces/${o.firstWorkspace}/groups`, as(stranger))).status, 403);
  t.equal((await sys.api("GET", `/api/v9/workspaces/${o.firstWorkspace}/groups`, as(stranger))).status, 403);
  t.equal((await sys.api("GET", `/api/v9/workspaces/${o.secondWorkspace}/groups`, as(o.member))).status, 403, "not a member of that workspace");
});

t.test("PATCH applies each operation on its own", async (t) => {
  const group = (await create({ name: "Patched", users: [o.member.id] })).body.group_id;
  const patch = (body: unknown, user: TrackUser = o.owner) => sys.api("PATCH", groupPath(group), { ...as(user), body });
  const ops = [
    { op: "add", path: "/users", value: [o.admin.id, o.member.id] },
    { op: "add", path: "/users", value: [stranger.id] },
    { op: "replace", path: "/workspaces", value: [o.firstWorkspace, o.secondWorkspace] },
    { op: "add", path: "/workspaces", value: [other.firstWorkspace] },
    { op: "remove", path: "/users", value: [o.member.id] },
  ];
  const res = await patch(ops);
  t.equal(res.status, 200, res.text);
  t.same(res.body, {
    failure: [
      { message: `User ${stranger.id} not exists in the organization ${o.organizationId}`, patch: ops[1] },
      { message: `Workspace ${other.firstWorkspace} not exists in the organization ${o.organizationId}`, patch: ops[3] },
    ],
    success: [ops[0], ops[2], ops[4]],
  });
  const now = (await sys.api("GET", groupsPath(), as(o.owner))).body.find((g: { group_id: number }) => g.group_id === group);
  t.same(now.users.map((u: { user_id: number }) => u.user_id), [o.admin.id]);
  t.same(now.workspaces, [o.firstWorkspace, o.secondWorkspace]);
  const replaced = await patch([{ op: "replace", path: "/workspaces", value: [o.secondWorkspace] }, { op: "replace", path: "/users", value: [] }]);
  t.equal(replaced.body.success.length, 2);
  const after = (await sys.api("GET", groupsPath(), as(o.owner))).body.find((g: { group_id: number }) => g.group_id === group);
  t.same(after.workspaces, [o.secondWorkspace]);
  t.same(after.users, []);
  t.same((await patch([])).body, { failure: [], success: [] }, "nothing to do");

  const before = await counts();
  const bad: [unknown, string][] = [
    [[{ op: "move", path: "/users", value: [1] }], patchOperationInvalid().rawMessage],
    [[{ path: "/users", value: [1] }], patchOperationInvalid().rawMessage],
    [[{ op: "add", path: "/name", value: [1] }], patchPathInvalid().rawMessage],
    [[{ op: "add", value: [1] }], patchPathInvalid().rawMessage],
    [Array.from({ length: 51 }, () => ({ op: "add", path: "/users", value: [o.admin.id] })), "Too many patches, maximum is 50"],
    [[{ op: "add", path: "/users", value: Array.from({ length: 1001 }, (_, i) => i + 1) }], "Too many values per patch, maximum is 1000"],
    [[{ op: "add", path: "/users", value: [o.admin.id] }, { op: "bad", path: "/users", value: [] }], patchOperationInvalid().rawMessage],
  ];
  for (const [body, message] of bad) {
    const r = await patch(body);
    t.equal(r.status, 400, message);
    t.equal(r.body, message);
  }
  for (const body of [{ op: "add" }, [{ op: "add", path: "/users", value: ["x"] }], [{ op: "add", path: "/users", value: [1.5] }], [5], "x"]) {
    const r = await patch(body);
    t.same([r.status, r.body], [400, invalidJson().rawMessage], JSON.stringify(body));
  }
  t.same(await counts(), before, "a refused PATCH changes nothing");
});

t.test("the workspaces' group lists", async (t) => {
  const a = (await create({ name: "zeta", users: [o.member.id], workspaces: [o.firstWorkspace] })).body;
  const b = (await create({ name: "Alpha", workspaces: [o.firstWorkspace, o.secondWorkspace] })).body;
  await create({ name: "unassigned" });
  const res = await sys.api("GET", `/api/v9/organizations/${o.organizationId}/workspaces/${o.firstWorkspace}/groups`, as(o.member));
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((g: { name: string }) => g.name), ["Alpha", "zeta"]);
  t.same(res.body[1], a);
  const foreign = await sys.api("GET", `/api/v9/organizations/${o.organizationId}/workspaces/${other.firstWorkspace}/groups`, as(o.owner));
  t.equal(foreign.status, 404, "a workspace of another organization");
  t.equal(foreign.body, resourceNotFound().rawMessage);

  const ws = await sys.api("GET", `/api/v9/workspaces/${o.firstWorkspace}/groups`, as(o.member));
  t.equal(ws.status, 200, ws.text);
  t.same(ws.body.map((g: { name: string }) => g.name), ["Alpha", "zeta"]);
  t.same(Object.keys(ws.body[0]).sort(), ["at", "id", "name", "workspace_id"]);
  t.same(ws.body[0], { at: b.at, id: b.group_id, name: "Alpha", workspace_id: o.firstWorkspace });
});

t.test("organization users answer their groups and filter by them", async (t) => {
  const g1 = (await create({ name: "Readers", users: [o.member.id, o.admin.id] })).body.group_id;
  const g2 = (await create({ name: "backend", users: [o.member.id] })).body.group_id;
  const foreign = (await create({ name: "x", users: [other.member.id] }, other.owner, other.organizationId)).body.group_id;
  const users = `/api/v9/organizations/${o.organizationId}/users`;
  const res = await sys.api("GET", `${users}?groups=${g1}`, as(o.owner));
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((u: { name: string }) => u.name), ["gAnna", "gbob"]);
  const bob = res.body.find((u: { name: string }) => u.name === "gbob");
  t.same(bob.groups.filter((g: { group_id: number }) => g.group_id === g1 || g.group_id === g2), [
    { group_id: g2, name: "backend" },
    { group_id: g1, name: "Readers" },
  ]);
  t.same((await sys.api("GET", `${users}?groups=${g2}`, as(o.owner))).body.map((u: { name: string }) => u.name), ["gbob"]);
  const refused = await sys.api("GET", `${users}?groups=${foreign}`, as(o.owner));
  t.equal(refused.status, 400, "a group of another organization");
  t.equal(refused.body, queryValueInvalid("groups").rawMessage);
  const olga = (await sys.api("GET", users, as(o.owner))).body.find((u: { name: string }) => u.name === "gOlga");
  t.same(olga.groups.filter((g: { group_id: number }) => g.group_id === g1), []);
});
