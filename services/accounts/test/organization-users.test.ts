import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { startTestSystem, type ApiResponse, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountEvents, accountsDb, addMember, organizationUserId, ownOrganization, workspaceUserOf, workspacesOf } from "./organization-support.js";
import { activeStatusInvalid, adminFlagsAndRole, onlyAdminsInvalid, organizationRoleInvalid, organizationUserFieldMissing, organizationUserIdsMissing, organizationUserIdsRepeated, organizationUserNotFound, ownerAdminRequired, ownerDeactivation, queryValueInvalid, sortDirInvalid } from "../errors.js";

/** An organization's users: the list (filters, sorting, pagination in headers), bulk removal, changing one user. */

// A clock the test moves: the tracking service remembers workspace access for 5 s of it.
const clock = new ManualClock(new Date());
const sys: TestSystem = await startTestSystem(t, { clock });
const db = await accountsDb(t, sys);
const plan = sys.directory.client("accounts", OrganizationAdminService);

const USER_FIELDS = [
  "admin", "avatar_url", "can_edit_email", "created_at", "email", "groups", "id", "inactive", "invitation_code", "invitation_id", "joined",
  "labour_cost", "name", "organization_id", "owner", "rate", "role", "updated_at", "user_id", "working_hours_in_minutes", "workspace_count", "workspaces",
];
const WORKSPACE_FIELDS = ["admin", "inactive", "name", "role", "workspace_id", "workspace_name", "workspace_user_id"];

/** An organization with an owner (Olga), an admin, members in various states, and a second workspace. */
async function organizationWithPeople(prefix: string) {
  const owner = await sys.signup(`${prefix}olga`);
  const organizationId = await ownOrganization(sys, owner);
  const [firstWorkspace] = await workspacesOf(db, organizationId);
  const [secondWorkspace] = await db("workspaces").insert({ organization_id: organizationId, name: `${prefix} second`, created_at: new Date(), updated_at: new Date() });
  const people: Record<string, TrackUser & { orgUserId: number }> = {};
  for (const [name, m] of [
    ["Anna", { admin: true }],
    ["bob", {}],
    ["Carla", { inactive: true }],
    ["dave", { joined: false }],
    ["Eve", { workspaces: [Number(secondWorkspace)] }],
  ] as const) {
    const user = await sys.signup(`${prefix}${name}`);
    people[name] = { ...user, orgUserId: await addMember(db, organizationId, user, m) };
  }
  const ownerId = await organizationUserId(db, organizationId, owner.id);
  return { owner: { ...owner, orgUserId: ownerId }, organizationId, firstWorkspace, secondWorkspace: Number(secondWorkspace), people };
}

const org = await organizationWithPeople("x");
const stranger = await sys.signup("stranger");
const strangerOrganization = await ownOrganization(sys, stranger);
const usersPath = (id: number = org.organizationId) => `/api/v9/organizations/${id}/users`;
const list = (query = "", user: TrackUser = org.owner) => sys.api("GET", `${usersPath()}${query}`, { auth: user.auth });
const names = (res: ApiResponse) => res.body.map((u: { name: string }) => u.name);
const headers = (res: ApiResponse) => ["x-page", "x-page-size", "x-pages", "x-records", "x-sort-order"].map((h) => res.headers.get(h));

t.test("the list answers every field of the real API's organization user, sorted on name, pagination in headers", async (t) => {
  const res = await list();
  t.equal(res.status, 200, res.text);
  t.same(names(res), ["xAnna", "xbob", "xCarla", "xdave", "xEve", "xolga"], "by name, ignoring case");
  t.same(headers(res), ["1", "50", "1", "6", "asc"], "X-Page, X-Page-Size, X-Pages, X-Records, X-Sort-Order");
  for (const u of res.body) t.same(Object.keys(u).sort(), USER_FIELDS, u.name);
  const olga = res.body.find((u: { name: string }) => u.name === "xolga");
  t.match(olga, {
    id: org.owner.orgUserId,
    user_id: org.owner.id,
    organization_id: org.organizationId,
    email: org.owner.email,
    admin: true,
    owner: true,
    inactive: false,
    joined: true,
    role: "admin",
    avatar_url: "",
    can_edit_email: false,
    groups: [],
    invitation_code: null,
    invitation_id: null,
    rate: null,
    labour_cost: null,
    working_hours_in_minutes: null,
    workspace_count: 1,
  });
  t.same(olga.workspaces, [{ admin: true, inactive: false, name: "xolga's workspace", role: "admin", workspace_id: org.firstWorkspace, workspace_name: "xolga's workspace", workspace_user_id: olga.workspaces[0].workspace_user_id }]);
  for (const w of olga.workspaces) t.same(Object.keys(w).sort(), WORKSPACE_FIELDS);
  t.match(olga.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  t.match(res.body.find((u: { name: string }) => u.name === "xCarla"), { inactive: true, joined: true, role: "user", workspaces: [{ inactive: true }, { inactive: true }] });
  t.match(res.body.find((u: { name: string }) => u.name === "xdave"), { joined: false, inactive: false });
  t.match(res.body.find((u: { name: string }) => u.name === "xEve"), { workspace_count: 1, workspaces: [{ workspace_id: org.secondWorkspace, name: "x second" }] });
  t.match(res.body.find((u: { name: string }) => u.name === "xAnna"), { admin: true, owner: false, role: "admin" });
});

t.test("page, per_page and sort_dir page through the list; a page beyond the last is empty", async (t) => {
  const second = await list("?per_page=2&page=2");
  t.same(names(second), ["xCarla", "xdave"]);
  t.same(headers(second), ["2", "2", "3", "6", "asc"]);
  const desc = await list("?per_page=4&sort_dir=desc");
  t.same(names(desc), ["xolga", "xEve", "xdave", "xCarla"]);
  t.same(headers(desc), ["1", "4", "2", "6", "desc"]);
  const lastDesc = await list("?per_page=4&page=2&sort_dir=desc");
  t.same(names(lastDesc), ["xbob", "xAnna"]);
  const beyond = await list("?per_page=4&page=3");
  t.same(beyond.body, []);
  t.same(headers(beyond), ["3", "4", "2", "6", "asc"]);
});

t.test("filters: name or e-mail contains, statuses, admins only, workspaces, groups", async (t) => {
  t.same(names(await list("?filter=CARL")), ["xCarla"], "name, ignoring case");
  t.same(names(await list(`?filter=${encodeURIComponent(org.people.bob.email.toUpperCase())}`)), ["xbob"], "e-mail");
  t.same(names(await list("?filter=%25")), [], "a % is a literal");
  t.same(names(await list("?active_status=active")), ["xAnna", "xbob", "xEve", "xolga"]);
  t.same(names(await list("?active_status=inactive")), ["xCarla"]);
  t.same(names(await list("?active_status=invited")), ["xdave"]);
  t.same(names(await list("?active_status=inactive,invited")), ["xCarla", "xdave"]);
  t.same(names(await list("?only_admins=true")), ["xAnna", "xolga"]);
  t.same(names(await list("?only_admins=false")).length, 6, "false: everyone");
  t.same(names(await list(`?workspaces=${org.secondWorkspace}`)), ["xAnna", "xbob", "xCarla", "xdave", "xEve"]);
  t.same(names(await list(`?workspaces=${org.firstWorkspace}&only_admins=true`)), ["xAnna", "xolga"]);
  const noGroups = await list("?groups=999999999");
  t.same([noGroups.status, noGroups.body], [400, queryValueInvalid("groups").rawMessage], "a group the organization does not have (groups.test.ts filters on real ones)");
  const filtered = await list("?active_status=active&per_page=3");
  t.same(headers(filtered), ["1", "3", "2", "4", "asc"], "pagination counts what the filters keep");
});

t.test("the list answers each 400 of the real API for a bad query value", async (t) => {
  const strangerWorkspace = (await workspacesOf(db, strangerOrganization))[0];
  for (const [query, message] of [
    ["active_status=deleted", activeStatusInvalid().rawMessage],
    ["active_status=active,", activeStatusInvalid().rawMessage],
    ["only_admins=yes", onlyAdminsInvalid().rawMessage],
    ["page=abc", queryValueInvalid("page").rawMessage],
    ["page=1.5", queryValueInvalid("page").rawMessage],
    ["page=0", "page parameter must contain values > 0."],
    ["page=-2", "page parameter must contain values > 0."],
    ["page=99999999999999999999", queryValueInvalid("page").rawMessage],
    ["per_page=x", queryValueInvalid("per_page").rawMessage],
    ["per_page=0", "per_page parameter must contain values > 0."],
    ["sort_dir=up", sortDirInvalid().rawMessage],
    ["groups=a", queryValueInvalid("groups").rawMessage],
    ["groups=1,,2", queryValueInvalid("groups").rawMessage],
    ["workspaces=0", queryValueInvalid("workspaces").rawMessage],
    [`workspaces=${strangerWorkspace}`, queryValueInvalid("workspaces").rawMessage],
    ["workspaces=99999999999999999999", queryValueInvalid("workspaces").rawMessage],
  ] as const) {
    const res = await list(`?${query}`);
    t.same([res.status, res.body], [400, message], query);
  }
});

t.test("only the organization's admins list its users; others get 403 and no data", async (t) => {
  const member = await list("", org.people.bob);
  t.same([member.status, member.body], [403, "User is not authorized to list the organization users"]);
  t.equal(member.headers.get("x-records"), null, "no pagination either");
  const other = await list("", stranger);
  t.same([other.status, other.body], [403, "User does not have access to this resource."]);
  const inactiveAdmin = await sys.signup("exadmin");
  await addMember(db, org.organizationId, inactiveAdmin, { admin: true, inactive: true });
  t.equal((await list("", inactiveAdmin)).status, 403, "a deactivated admin is no member");
  t.equal((await list("", org.people.Anna)).status, 200, "an admin who is not the owner may");
});

t.test("PATCH /organizations/{id}/users removes users with their memberships of the organization's workspaces", async (t) => {
  const o = await organizationWithPeople("p");
  const res = await sys.api("PATCH", usersPath(o.organizationId), { auth: o.people.Anna.auth, body: { delete: [o.people.bob.orgUserId, o.people.dave.orgUserId] } });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "");
  const left = await sys.api("GET", usersPath(o.organizationId), { auth: o.owner.auth });
  t.same(names(left), ["pAnna", "pCarla", "pEve", "polga"]);
  for (const p of [o.people.bob, o.people.dave]) {
    t.same(await db("workspace_users").whereIn("workspace_id", [o.firstWorkspace, o.secondWorkspace]).andWhere({ user_id: p.id }), [], "no membership left");
  }
  const events = (await accountEvents(db)).filter((e) => e.entity === "workspace_user" && e.action === "deleted" && workspaceUserOf(e).userId === BigInt(o.people.bob.id));
  t.same(events.map((e) => e.workspaceId).sort(), [String(o.firstWorkspace), String(o.secondWorkspace)].sort(), "one deleted event per membership");
  t.equal(events[0].userId, BigInt(o.people.Anna.id), "by the admin who removed them");
  const me = await sys.api("GET", "/api/v9/me", { auth: o.people.bob.auth });
  t.equal(me.status, 200, "the account itself stays");
});

t.test("PATCH answers each 400 and removes nothing when one id fails", async (t) => {
  const o = await organizationWithPeople("q");
  const strangerOrgUser = await organizationUserId(db, strangerOrganization, stranger.id);
  for (const [body, message] of [
    [{}, organizationUserIdsMissing().rawMessage],
    [{ delete: [] }, organizationUserIdsMissing().rawMessage],
    [{ delete: [o.people.bob.orgUserId, o.people.bob.orgUserId] }, organizationUserIdsRepeated().rawMessage],
    [{ delete: [o.people.bob.orgUserId, strangerOrgUser, 0] }, `The following organization user IDs do not belong to this organization: '${strangerOrgUser},0'.`],
    [{ delete: [o.people.bob.orgUserId, o.owner.orgUserId] }, `Cannot remove the organization owner user with organization user ID='${o.owner.orgUserId}'.`],
  ] as const) {
    const res = await sys.api("PATCH", usersPath(o.organizationId), { auth: o.owner.auth, body });
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  t.equal((await sys.api("GET", usersPath(o.organizationId), { auth: o.owner.auth })).body.length, 6, "nobody was removed");
  t.equal((await sys.api("GET", usersPath(strangerOrganization), { auth: stranger.auth })).body.length, 1, "the other organization's user stays");
  const member = await sys.api("PATCH", usersPath(o.organizationId), { auth: o.people.bob.auth, body: { delete: [o.people.Eve.orgUserId] } });
  t.same([member.status, member.body], [403, "User is not authorized to delete the organization user"]);
  const other = await sys.api("PATCH", usersPath(o.organizationId), { auth: stranger.auth, body: { delete: [o.people.Eve.orgUserId] } });
  t.same([other.status, other.body], [403, "User does not have access to this resource."]);
  t.equal((await sys.api("GET", usersPath(o.organizationId), { auth: o.owner.auth })).body.length, 6);
});

const userPath = (o: { organizationId: number }, orgUserId: number) => `/api/v9/organizations/${o.organizationId}/users/${orgUserId}`;
const listed = async (o: typeof org, name: string) => (await sys.api("GET", usersPath(o.organizationId), { auth: o.owner.auth })).body.find((u: { name: string }) => u.name === name);

t.test("PUT /organizations/{id}/users/{id} makes a user admin or not, by the flag or the role", async (t) => {
  const o = await organizationWithPeople("r");
  const put = (body: unknown) => sys.api("PUT", userPath(o, o.people.bob.orgUserId), { auth: o.owner.auth, body });
  const res = await put({ admin: true });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "");
  t.match(await listed(o, "rbob"), { admin: true, role: "admin" });
  t.equal((await sys.api("GET", usersPath(o.organizationId), { auth: o.people.bob.auth })).status, 200, "the new admin may list");
  await put({ role: "projectlead" });
  t.match(await listed(o, "rbob"), { admin: false, role: "projectlead" });
  await put({ role: "teamlead" });
  t.match(await listed(o, "rbob"), { admin: false, role: "teamlead" });
  await put({ role: "admin" });
  t.match(await listed(o, "rbob"), { admin: true, role: "admin" });
  await put({ admin: false });
  t.match(await listed(o, "rbob"), { admin: false, role: "user" });
  const events = (await accountEvents(db)).filter((e) => e.entity === "workspace_user" && e.action === "updated" && workspaceUserOf(e).userId === BigInt(o.people.bob.id));
  t.equal(events.length, 5 * 2, "an updated event per change and membership");
  t.match(workspaceUserOf(events[0]), { organizationAdmin: true, active: true, inactive: false });
});

t.test("a deactivated user can no longer act in the organization's workspaces; reactivated, it can again", async (t) => {
  const o = await organizationWithPeople("s");
  const bob = o.people.bob;
  const clients = `/api/v9/workspaces/${o.firstWorkspace}/clients`;
  t.equal((await sys.api("GET", clients, { auth: bob.auth })).status, 200);
  const off = await sys.api("PUT", userPath(o, bob.orgUserId), { auth: o.owner.auth, body: { inactive: true } });
  t.equal(off.status, 200, off.text);
  t.match(await listed(o, "sbob"), { inactive: true, workspaces: [{ inactive: true }, { inactive: true }] });
  clock.advance(5_001);
  t.equal((await sys.api("GET", clients, { auth: bob.auth })).status, 403, "refused once the tracking service asks again");
  const on = await sys.api("PUT", userPath(o, bob.orgUserId), { auth: o.owner.auth, body: { inactive: false } });
  t.equal(on.status, 200, on.text);
  clock.advance(5_001);
  t.equal((await sys.api("GET", clients, { auth: bob.auth })).status, 200);
  const invited = await sys.api("PUT", userPath(o, o.people.dave.orgUserId), { auth: o.owner.auth, body: { inactive: false } });
  t.equal(invited.status, 200);
  t.match(await listed(o, "sdave"), { joined: false, workspaces: [{ inactive: true }, { inactive: true }] }, "an invited user acts only once joined");
});

t.test("the paid fields need a paid organization plan; posted fields without a value are set to null", async (t) => {
  const o = await organizationWithPeople("u");
  const put = (body: unknown) => sys.api("PUT", userPath(o, o.people.bob.orgUserId), { auth: o.owner.auth, body });
  for (const body of [{ rate: 10 }, { labour_cost: 5 }, { working_hours_in_minutes: 480 }, { rate_change_mode: "start-today" }, { admin: true, rate: 1 }]) {
    const res = await put(body);
    t.same([res.status, res.body], [402, "Setting rate, labour_cost, rate_change_mode and working_hours_in_minutes needs a paid organization plan"], JSON.stringify(body));
  }
  t.match(await listed(o, "ubob"), { admin: false, rate: null }, "the refused change changed nothing");

  await plan.setOrganizationPlan({ organizationId: BigInt(o.organizationId), paid: true });
  const res = await put({ rate: 42.5, labour_cost: 30, working_hours_in_minutes: 450, rate_change_mode: "override-all" });
  t.equal(res.status, 200, res.text);
  t.match(await listed(o, "ubob"), { rate: 42.5, labour_cost: 30, working_hours_in_minutes: 450 });
  const event = (await accountEvents(db)).filter((e) => e.entity === "workspace_user" && workspaceUserOf(e).userId === BigInt(o.people.bob.id)).at(-1)!;
  t.match(workspaceUserOf(event), { rate: 42.5, labourCost: 30n, workingHoursInMinutes: 450n });
  t.ok(workspaceUserOf(event).rateLastUpdated, "rate_last_updated is set with the rate");

  const nulled = await put({ postedFields: ["rate", "labour_cost"], working_hours_in_minutes: 400 });
  t.equal(nulled.status, 200, nulled.text);
  t.match(await listed(o, "ubob"), { rate: null, labour_cost: null, working_hours_in_minutes: 400 });
  const explicitNull = await put({ postedFields: ["working_hours_in_minutes"], working_hours_in_minutes: null });
  t.equal(explicitNull.status, 200);
  t.match(await listed(o, "ubob"), { working_hours_in_minutes: null });

  await plan.setOrganizationPlan({ organizationId: BigInt(o.organizationId), paid: false });
  await plan.setOrganizationPlan({ organizationId: BigInt(o.organizationId), paid: true });
  await put({ rate: 3 });
  await plan.setOrganizationPlan({ organizationId: BigInt(o.organizationId), paid: false });
  const clear = await put({ postedFields: ["rate"] });
  t.equal(clear.status, 200, "clearing a paid field needs no plan");
  t.match(await listed(o, "ubob"), { rate: null });
});

t.test("PUT answers each 400, 403 and 404 of the real API and changes nothing", async (t) => {
  const o = await organizationWithPeople("v");
  const before = (await sys.api("GET", usersPath(o.organizationId), { auth: o.owner.auth })).body;
  const cases: [number, unknown, number, string][] = [
    [o.people.bob.orgUserId, {}, 400, organizationUserFieldMissing().rawMessage],
    [o.people.bob.orgUserId, { unknown: 1 }, 400, organizationUserFieldMissing().rawMessage],
    [o.owner.orgUserId, { inactive: true }, 400, ownerDeactivation().rawMessage],
    [o.owner.orgUserId, { admin: false }, 400, ownerAdminRequired().rawMessage],
    [o.owner.orgUserId, { role: "user" }, 400, ownerAdminRequired().rawMessage],
    [o.people.bob.orgUserId, { role: "boss" }, 400, organizationRoleInvalid().rawMessage],
    [o.people.bob.orgUserId, { admin: true, role: "admin" }, 400, adminFlagsAndRole().rawMessage],
    [o.people.bob.orgUserId, { rate_change_mode: "yesterday" }, 400, "rate_change_mode must be one of 'start-today', 'override-current', 'override-all'"],
    [o.people.bob.orgUserId, { postedFields: ["email"] }, 400, "postedFields may name only admin, inactive, labour_cost, rate, rate_change_mode, role, working_hours_in_minutes"],
    [o.people.bob.orgUserId, { rate: -1 }, 400, "rate must be at least 0"],
    [o.people.bob.orgUserId, { working_hours_in_minutes: 1441 }, 400, "working_hours_in_minutes must be at most 1440"],
    [999999999, { admin: true }, 404, organizationUserNotFound().rawMessage],
    [await organizationUserId(db, strangerOrganization, stranger.id), { admin: false }, 404, organizationUserNotFound().rawMessage],
  ];
  for (const [id, body, status, message] of cases) {
    const res = await sys.api("PUT", userPath(o, id), { auth: o.owner.auth, body });
    t.same([res.status, res.body], [status, message], `${id} ${JSON.stringify(body)}`);
  }
  const member = await sys.api("PUT", userPath(o, o.people.Eve.orgUserId), { auth: o.people.bob.auth, body: { admin: true } });
  t.same([member.status, member.body], [403, "User is not authorized to update the organization user"]);
  const other = await sys.api("PUT", userPath(o, o.people.Eve.orgUserId), { auth: stranger.auth, body: { admin: true } });
  t.same([other.status, other.body], [403, "User does not have access to this resource."]);
  t.same((await sys.api("GET", usersPath(o.organizationId), { auth: o.owner.auth })).body, before, "nothing changed");
});

t.test("on the free plan a reactivation needs one of the 5 seats; a paid plan lifts the limit", async (t) => {
  const o = await organizationWithPeople("w");
  // Seats: the owner, Anna, bob, dave (invited) and Eve: 5 of 5; Carla is deactivated.
  const res = await sys.api("PUT", userPath(o, o.people.Carla.orgUserId), { auth: o.owner.auth, body: { inactive: false } });
  t.same([res.status, res.body], [400, "Active user limit is 5. Upgrade to add more active users"]);
  t.match(await listed(o, "wCarla"), { inactive: true });
  await plan.setOrganizationPlan({ organizationId: BigInt(o.organizationId), paid: true });
  const paid = await sys.api("PUT", userPath(o, o.people.Carla.orgUserId), { auth: o.owner.auth, body: { inactive: false } });
  t.equal(paid.status, 200, paid.text);
  t.match(await listed(o, "wCarla"), { inactive: false });
});
