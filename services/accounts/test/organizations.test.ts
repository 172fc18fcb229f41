import t from "tap";
import { startReceiver, startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { runAdminCli } from "../../../test/support/admin-cli.js";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { accountEvents, accountsDb, addMember, ownOrganization, workspaceUserOf, workspacesOf } from "./organization-support.js";
import { newOrganizationNameEmpty, notOrganizationMember, organizationFieldMissing, organizationNameEmpty, ownerCannotLeave, workspaceNameEmpty, workspaceNameMissing } from "../errors.js";

/** Organizations: creating one with its workspace, reading, renaming, leaving, the caller's list, the plan operators set. */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);
const owner: TrackUser = await sys.signup("owner");
const member: TrackUser = await sys.signup("member");
const stranger: TrackUser = await sys.signup("stranger");
const organizationId = await ownOrganization(sys, owner);
await addMember(db, organizationId, member);

const ORGANIZATION_FIELDS = [
  "admin", "at", "created_at", "id", "is_multi_workspace_enabled", "is_unified", "max_data_retention_days", "max_workspaces", "name", "owner",
  "permissions", "pricing_plan_id", "server_deleted_at", "suspended_at", "trial_info", "user_count",
];
const TRIAL_FIELDS = ["can_have_trial", "last_pricing_plan_id", "next_payment_date", "trial", "trial_available", "trial_end_date"];

const getOrganization = (user: TrackUser, id: number | string = organizationId) => sys.api("GET", `/api/v9/organizations/${id}`, { auth: user.auth });
const createOrganization = (user: TrackUser, body: unknown) => sys.api("POST", "/api/v9/organizations", { auth: user.auth, body });
const organizationCount = async (userId: number) => Number((await db("organizations").where({ owner_id: userId }).count({ n: "*" }))[0].n);

t.test("POST /organizations creates the organization with one workspace; the caller owns and administers both", async (t) => {
  const user = await sys.signup("creator");
  const res = await createOrganization(user, { name: "  Acme Inc  ", workspace_name: " Acme Ops " });
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ["id", "name", "permissions", "workspace_id", "workspace_name"], "the real API's fields");
  t.match(res.body, { id: Number, name: "Acme Inc", permissions: null, workspace_id: Number, workspace_name: "Acme Ops" });

  const got = await getOrganization(user, res.body.id);
  t.equal(got.status, 200, got.text);
  t.match(got.body, { id: res.body.id, name: "Acme Inc", admin: true, owner: true, user_count: 1, pricing_plan_id: 0 });
  const workspaces = await sys.api("GET", "/api/v9/workspaces", { auth: user.auth });
  t.match(workspaces.body.find((w: { id: number }) => w.id === res.body.workspace_id), { name: "Acme Ops", organization_id: res.body.id, admin: true, role: "admin" });
  const users = await sys.api("GET", `/api/v9/organizations/${res.body.id}/users`, { auth: user.auth });
  t.match(users.body, [{ user_id: user.id, owner: true, admin: true, joined: true, workspaces: [{ workspace_id: res.body.workspace_id, admin: true, role: "admin" }] }]);

  const created = (await accountEvents(db)).filter((e) => e.workspaceId === String(res.body.workspace_id));
  t.same(created.map((e) => `${e.entity} ${e.action}`), ["workspace created", "workspace_user created"], "events of the new workspace and membership");
  t.same([created[0].objectId, created[0].userId], [String(res.body.workspace_id), BigInt(user.id)]);
  t.match(workspaceUserOf(created[1]), { userId: BigInt(user.id), workspaceId: BigInt(res.body.workspace_id), admin: true, active: true, organizationAdmin: true });
});

t.test("POST /organizations: names of 140 characters are taken whole", async (t) => {
  const name = "😀".repeat(140);
  const res = await createOrganization(owner, { name, workspace_name: name });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { name, workspace_name: name });
});

t.test("POST /organizations answers each 400 with its message and creates nothing", async (t) => {
  const before = await organizationCount(stranger.id);
  for (const [body, message] of [
    [{}, newOrganizationNameEmpty().rawMessage],
    [{ name: "   ", workspace_name: "W" }, newOrganizationNameEmpty().rawMessage],
    [{ name: "x".repeat(141), workspace_name: "W" }, "organization name too long, maximum length is 140"],
    [{ name: "Org" }, workspaceNameMissing().rawMessage],
    [{ name: "Org", workspace_name: null }, workspaceNameMissing().rawMessage],
    [{ name: "Org", workspace_name: "  " }, workspaceNameEmpty().rawMessage],
    [{ name: "Org", workspace_name: "" }, workspaceNameEmpty().rawMessage],
    [{ name: "Org", workspace_name: "w".repeat(141) }, "workspace name must not be longer than 140"],
    [{ name: 5, workspace_name: "W" }, "Invalid value for name: expected string, got number"],
  ] as const) {
    const res = await createOrganization(stranger, body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message, JSON.stringify(body));
  }
  const malformed = await sys.api("POST", "/api/v9/organizations", { auth: stranger.auth, rawBody: "{", headers: { "content-type": "application/json" } });
  t.same([malformed.status, malformed.body], [400, "Invalid JSON input"]);
  t.equal(await organizationCount(stranger.id), before);
});

t.test("a user in 100 workspaces cannot create another organization, and nothing of it is written", async (t) => {
  const busy = await sys.signup("busy");
  // 99 more memberships (of workspaces that are not read here) besides the sign-up workspace.
  await db("workspace_users").insert(Array.from({ length: 99 }, (_, i) => ({ workspace_id: 10_000_000 + i, user_id: busy.id, admin: false, role: "user", active: true })));
  t.teardown(() => db("workspace_users").where({ user_id: busy.id }).andWhere("workspace_id", ">=", 10_000_000).delete());
  const workspacesBefore = Number((await db("workspaces").count({ n: "*" }))[0].n);
  const res = await createOrganization(busy, { name: "One Too Many", workspace_name: "W" });
  t.same([res.status, res.body], [400, "User can have at most 100 workspaces"]);
  t.equal(await organizationCount(busy.id), 1, "only the sign-up organization");
  t.equal(Number((await db("workspaces").count({ n: "*" }))[0].n), workspacesBefore, "no workspace");
  t.equal(Number((await db("workspace_users").where({ user_id: busy.id }).count({ n: "*" }))[0].n), 100, "no membership");
});

t.test("GET /organizations/{id} answers every field of the organization, as the requester sees it", async (t) => {
  const res = await getOrganization(owner);
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ORGANIZATION_FIELDS);
  t.same(Object.keys(res.body.trial_info).sort(), TRIAL_FIELDS);
  t.match(res.body, {
    id: organizationId,
    name: "owner's organization",
    admin: true,
    owner: true,
    user_count: 2,
    pricing_plan_id: 0,
    is_multi_workspace_enabled: false,
    is_unified: false,
    max_workspaces: 20,
    max_data_retention_days: null,
    permissions: null,
    server_deleted_at: null,
    suspended_at: null,
    trial_info: { can_have_trial: false, last_pricing_plan_id: null, next_payment_date: null, trial: false, trial_available: false, trial_end_date: null },
  });
  t.match(res.body.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  t.match(res.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  const asMember = await getOrganization(member);
  t.match(asMember.body, { id: organizationId, admin: false, owner: false, user_count: 2 });
});

t.test("GET /organizations/{id}: 404 for an organization that does not exist or that the caller is not part of, never its data", async (t) => {
  for (const id of ["999999999", "0", "9007199254740993"]) {
    const res = await getOrganization(owner, id);
    t.same([res.status, res.body], [404, "Invalid organization ID"], id);
  }
  const res = await getOrganization(stranger);
  t.same([res.status, res.body], [404, "User not part of organization"]);
  for (const state of [{ joined: false }, { inactive: true }]) {
    const someone = await sys.signup("half");
    await addMember(db, organizationId, someone, state);
    const half = await getOrganization(someone);
    t.same([half.status, half.body], [404, "User not part of organization"], JSON.stringify(state));
    await db("organization_users").where({ user_id: someone.id }).delete();
    await db("workspace_users").where({ user_id: someone.id, workspace_id: (await workspacesOf(db, organizationId))[0] }).delete();
  }
  const malformed = await getOrganization(owner, "abc");
  t.same([malformed.status, malformed.body], [400, "Invalid organization_id"]);
});

t.test("PUT /organizations/{id} renames the organization: admins only, OK with no body", async (t) => {
  const before = (await getOrganization(owner)).body;
  const res = await sys.api("PUT", `/api/v9/organizations/${organizationId}`, { auth: owner.auth, body: { name: "  Renamed Org " } });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "", "the real API's OK: nothing in the body");
  const after = (await getOrganization(owner)).body;
  t.equal(after.name, "Renamed Org");
  t.ok(after.at >= before.at, "at moves");

  for (const [body, message] of [
    [{}, organizationFieldMissing().rawMessage],
    [{ name: "" }, organizationNameEmpty().rawMessage],
    [{ name: " " }, organizationNameEmpty().rawMessage],
    [{ name: "n".repeat(141) }, "organization name too long, maximum length is 140"],
    [{ pricing_plan_id: 1 }, organizationFieldMissing().rawMessage],
  ] as const) {
    const bad = await sys.api("PUT", `/api/v9/organizations/${organizationId}`, { auth: owner.auth, body });
    t.same([bad.status, bad.body], [400, message], JSON.stringify(body));
  }
  const notAdmin = await sys.api("PUT", `/api/v9/organizations/${organizationId}`, { auth: member.auth, body: { name: "Mine" } });
  t.same([notAdmin.status, notAdmin.body], [403, "User is not authorized to update the organization"]);
  const other = await sys.api("PUT", `/api/v9/organizations/${organizationId}`, { auth: stranger.auth, body: { name: "Mine" } });
  t.same([other.status, other.body], [403, "User does not have access to this resource."]);
  t.equal((await getOrganization(owner)).body.name, "Renamed Org", "unchanged by the refused ones");
  t.equal((await getOrganization(owner)).body.pricing_plan_id, 0, "a client does not set the plan");
});

t.test("GET /me/organizations lists the organizations the caller is a joined, active member of, by name", async (t) => {
  const user = await sys.signup("many");
  await createOrganization(user, { name: "aardvark co", workspace_name: "W" });
  await addMember(db, organizationId, user, { inactive: true });
  const res = await sys.api("GET", "/api/v9/me/organizations", { auth: user.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((o: { name: string }) => o.name), ["aardvark co", "many's organization"], "the inactive membership is not listed");
  for (const o of res.body) {
    t.same(Object.keys(o).sort(), ORGANIZATION_FIELDS);
    t.same(o, (await getOrganization(user, o.id)).body, "the same shape as GET /organizations/{id}");
  }
  const none = await sys.api("GET", "/api/v9/me/organizations", { auth: { basic: [user.email, "wrong password"] } });
  t.equal(none.status, 403);
});

t.test("the plan is set by operators only: track:organization plan, run as a command", async (t) => {
  const run = await runAdminCli(sys, "track:organization", "plan", "--organization", String(organizationId), "--paid", "true");
  t.equal(run.code, 0, run.stderr);
  t.same(run.json, { organization_id: organizationId, paid: true, pricing_plan_id: 1 });
  t.match((await getOrganization(owner)).body, { pricing_plan_id: 1, is_multi_workspace_enabled: true });

  const free = await runAdminCli(sys, "track:organization", "plan", "--organization", String(organizationId), "--paid=false");
  t.equal(free.code, 0, free.stderr);
  t.same(free.json, { organization_id: organizationId, paid: false, pricing_plan_id: 0 });
  t.match((await getOrganization(owner)).body, { pricing_plan_id: 0, is_multi_workspace_enabled: false });

  const missing = await runAdminCli(sys, "track:organization", "plan", "--organization", "999999999", "--paid", "true");
  t.equal(missing.code, 1);
  t.match(missing.stderr, /organization 999999999 not found/);
  const usage = await runAdminCli(sys, "track:organization", "plan", "--organization", String(organizationId), "--paid", "yes");
  t.equal(usage.code, 2);
  t.match(usage.stderr, "usage: npm run -s admin -- track:organization plan --organization <id> --paid <true|false>");
});

t.test("DELETE /organizations/{id}/users/leave: a member leaves with its workspace memberships", async (t) => {
  const leaver = await sys.signup("leaver");
  await addMember(db, organizationId, leaver);
  const workspaceId = (await workspacesOf(db, organizationId))[0];
  const res = await sys.api("DELETE", `/api/v9/organizations/${organizationId}/users/leave`, { auth: leaver.auth });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "");
  t.same(await db("organization_users").where({ organization_id: organizationId, user_id: leaver.id }), []);
  t.same(await db("workspace_users").where({ workspace_id: workspaceId, user_id: leaver.id }), [], "its memberships of the organization's workspaces go");
  t.same([(await getOrganization(leaver)).status], [404]);
  const deleted = (await accountEvents(db)).filter((e) => e.entity === "workspace_user" && e.action === "deleted" && workspaceUserOf(e).userId === BigInt(leaver.id));
  t.same(deleted.map((e) => e.workspaceId), [String(workspaceId)]);

  const again = await sys.api("DELETE", `/api/v9/organizations/${organizationId}/users/leave`, { auth: leaver.auth });
  t.same([again.status, again.body], [400, notOrganizationMember().rawMessage]);
  for (const id of ["999999999", "0"]) {
    const none = await sys.api("DELETE", `/api/v9/organizations/${id}/users/leave`, { auth: leaver.auth });
    t.same([none.status, none.body], [400, notOrganizationMember().rawMessage], id);
  }
});

t.test("the owner cannot leave while others remain; the last user leaving deletes the organization and its workspaces", async (t) => {
  const res = await sys.api("DELETE", `/api/v9/organizations/${organizationId}/users/leave`, { auth: owner.auth });
  t.same([res.status, res.body], [400, ownerCannotLeave().rawMessage]);
  t.equal((await getOrganization(owner)).status, 200, "still there");

  const solo = await sys.signup("solo");
  const soloOwn = await ownOrganization(sys, solo);
  const created = (await createOrganization(solo, { name: "Solo Org", workspace_name: "Solo WS" })).body;
  // The sign-up workspace is the default; leaving that organization moves the default to the other workspace.
  const left = await sys.api("DELETE", `/api/v9/organizations/${soloOwn}/users/leave`, { auth: solo.auth });
  t.equal(left.status, 200, left.text);
  t.same(await db("organizations").where({ id: soloOwn }), [], "the organization is gone");
  t.same(await db("workspaces").where({ organization_id: soloOwn }), [], "with its workspaces");
  t.same(await db("workspace_users").where({ workspace_id: solo.workspaceId }), [], "and their memberships");
  t.equal((await getOrganization(solo, soloOwn)).body, "Invalid organization ID");
  const gone = (await accountEvents(db)).filter((e) => e.workspaceId === String(solo.workspaceId)).map((e) => `${e.entity} ${e.action}`);
  t.same(gone.slice(-2), ["workspace_user deleted", "workspace deleted"], "the membership's and the workspace's deleted events");
  const me = await sys.api("GET", "/api/v9/me", { auth: solo.auth });
  t.equal(me.body.default_workspace_id, created.workspace_id, "the default workspace moved to one the user still has");
  t.same((await sys.api("GET", "/api/v9/me/organizations", { auth: solo.auth })).body.map((o: { id: number }) => o.id), [created.id]);
});

t.test("membership changes reach webhook subscribers of the workspace as workspace_user events", async (t) => {
  const filters = await sys.api("GET", "/webhooks/api/v1/event_filters", { auth: owner.auth });
  t.same(filters.body.workspace_user, ["created", "updated", "deleted"], "event_filters lists them");
  t.same(filters.body.workspace, ["created", "updated", "deleted"]);
  const receiver = await startReceiver(t);
  const workspaceId = (await workspacesOf(db, organizationId))[0];
  await sys.directory.client("notifier", WebhookAdminService).createSubscription({
    service: "accounts",
    workspaceId: String(workspaceId),
    url: receiver.url("members"),
    eventFilters: [{ entity: "workspace_user", action: "*" }],
  });
  const joiner = await sys.signup("joiner");
  await addMember(db, organizationId, joiner);
  const left = await sys.api("DELETE", `/api/v9/organizations/${organizationId}/users/leave`, { auth: joiner.auth });
  t.equal(left.status, 200);
  await receiver.until(() => receiver.received.some((r) => r.json?.metadata?.action === "deleted"));
  const note = receiver.received.find((r) => r.json?.metadata?.action === "deleted")!.json;
  t.match(note.metadata, { model: "workspace_user", action: "deleted", workspace_id: String(workspaceId), event_user_id: String(joiner.id) });
  t.match(note.payload, { user_id: joiner.id, workspace_id: workspaceId, email: joiner.email, name: "joiner", organization_admin: false, active: true, inactive: false, group_ids: [] });
});
