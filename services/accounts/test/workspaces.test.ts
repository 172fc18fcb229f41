import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { accountEvents, accountsDb, addMember, ownOrganization } from "./organization-support.js";
import { adminNotMember, multipleWorkspacesNotEnabled, organizationWorkspaceLimit, premiumNeeded, roundingInvalid, tagRestrictionNeedsPremium, workspaceAdminUnknown, workspaceNameEmpty, workspaceNameNil, workspaceNameTaken } from "../errors.js";

/** Workspaces: reading, changing settings, creating in an organization, statistics, time entry constraints. */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);
const owner: TrackUser = await sys.signup("Owner");
const member: TrackUser = await sys.signup("Member");
const orgAdmin: TrackUser = await sys.signup("OrgAdmin");
const stranger: TrackUser = await sys.signup("Stranger");
const organizationId = await ownOrganization(sys, owner);
const wid = owner.workspaceId;
await addMember(db, organizationId, member);
await addMember(db, organizationId, orgAdmin, { admin: true });
const identity = sys.directory.client("accounts", IdentityService);
const plans = sys.directory.client("accounts", OrganizationAdminService);

const WORKSPACE_FIELDS = [
  "admin", "api_token", "at", "business_ws", "default_currency", "default_hourly_rate", "hide_start_end_times", "ical_enabled", "ical_url", "id",
  "last_modified", "limit_public_project_data", "logo_url", "max_data_retention_days", "name", "only_admins_may_create_projects", "only_admins_may_create_tags",
  "only_admins_see_billable_rates", "only_admins_see_team_dashboard", "organization_id", "permissions", "premium", "profile", "projects_billable_by_default",
  "projects_enforce_billable", "projects_private_by_default", "rate_last_updated", "reports_collapse", "role", "rounding", "rounding_minutes", "server_deleted_at",
  "suspended_at", "te_constraints", "working_hours_in_minutes", "csv_upload", "subscription",
];

const get = (u: TrackUser, id: number | string = wid) => sys.api("GET", `/api/v9/workspaces/${id}`, { auth: u.auth });
const put = (u: TrackUser, body: unknown, id: number = wid) => sys.api("PUT", `/api/v9/workspaces/${id}`, { auth: u.auth, body });
const create = (u: TrackUser, body: unknown, org: number = organizationId) => sys.api("POST", `/api/v9/organizations/${org}/workspaces`, { auth: u.auth, body });

t.test("GET /workspaces/{id}: the workspace for a member, 403 for anyone else", async (t) => {
  const res = await get(owner);
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), WORKSPACE_FIELDS.sort(), "the real API's fields");
  t.match(res.body, { id: wid, organization_id: organizationId, admin: true, role: "admin", premium: false, default_currency: "USD", rounding: 0, te_constraints: { description_present: false } });
  t.match((await get(member)).body, { id: wid, admin: false, role: "user" });
  for (const [u, id] of [[stranger, wid], [owner, 999999999], [owner, stranger.workspaceId]] as const) {
    const r = await get(u, id);
    t.equal(r.status, 403);
    t.equal(r.body, "Forbidden");
  }
});

t.test("PUT /workspaces/{id}: workspace admins change settings; premium ones need premium", async (t) => {
  for (const u of [member, stranger]) t.equal((await put(u, { name: "X" })).status, 403, "only workspace admins");
  const byOrgAdmin = await put(orgAdmin, { name: "By the organization's admin" });
  t.equal(byOrgAdmin.status, 200, "an organization admin administers every workspace of the organization");
  t.match(byOrgAdmin.body, { name: "By the organization's admin", admin: true, role: "admin" });
  const res = await put(owner, { name: "  Renamed  ", only_admins_may_create_projects: true, reports_collapse: true, projects_private_by_default: false, default_currency: "USD" });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: wid, name: "Renamed", only_admins_may_create_projects: true, reports_collapse: true, admin: true });
  const events = (await accountEvents(db)).filter((e) => e.entity === "workspace" && e.action === "updated" && e.workspaceId === String(wid));
  t.equal(events.length, 2, "workspace updated, twice");

  for (const [body, message] of [
    [{ default_hourly_rate: 10 }, premiumNeeded("default_hourly_rate").rawMessage],
    [{ default_currency: "EUR" }, premiumNeeded("default_currency").rawMessage],
    [{ rounding: 1 }, premiumNeeded("rounding").rawMessage],
    [{ rounding_minutes: 15 }, premiumNeeded("rounding_minutes").rawMessage],
    [{ only_admins_see_billable_rates: true }, premiumNeeded("only_admins_see_billable_rates").rawMessage],
    [{ projects_billable_by_default: true }, premiumNeeded("projects_billable_by_default").rawMessage],
    [{ only_admins_may_create_tags: true }, tagRestrictionNeedsPremium().rawMessage],
  ] as const) {
    const r = await put(owner, body);
    t.equal(r.status, 402, JSON.stringify(body));
    t.equal(r.body, message);
  }
  for (const [body, message] of [
    [{ name: "   " }, workspaceNameEmpty().rawMessage],
    [{ name: "x".repeat(141) }, "workspace name must not be longer than 140"],
    [{ rounding: 2 }, roundingInvalid().rawMessage],
    [{ admins: [stranger.id] }, adminNotMember().rawMessage],
  ] as const) {
    const r = await put(owner, body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body, message);
  }

  await identity.setWorkspacePlan({ workspaceId: BigInt(wid), premium: true });
  const paid = await put(owner, { default_hourly_rate: 25.5, default_currency: "eur", rounding: -1, rounding_minutes: 15, only_admins_may_create_tags: true, projects_billable_by_default: true, only_admins_see_billable_rates: true });
  t.equal(paid.status, 200, paid.text);
  t.match(paid.body, { default_hourly_rate: 25.5, default_currency: "EUR", rounding: -1, rounding_minutes: 15, only_admins_may_create_tags: true, premium: true, rate_last_updated: String });

  const made = await put(owner, { admins: [member.id] });
  t.equal(made.status, 200, made.text);
  t.match((await get(member)).body, { admin: true, role: "admin" }, "admins makes members admins");
  await db("workspace_users").where({ workspace_id: wid, user_id: member.id }).update({ admin: false, role: "user" });
});

t.test("POST /organizations/{id}/workspaces: organization admins create workspaces within the plan's limits", async (t) => {
  const o = await sys.signup("Creator");
  const org = await ownOrganization(sys, o);
  const other = await sys.signup("OtherMember");
  await addMember(db, org, other);
  const plain = await sys.signup("PlainMember");
  await addMember(db, org, plain);

  let r = await create(o, { name: "Second" }, org);
  t.equal(r.status, 400);
  t.equal(r.body, multipleWorkspacesNotEnabled().rawMessage);
  r = await create(o, { name: "New", default_hourly_rate: 5 }, org);
  t.equal(r.status, 402, "a free organization's workspace is not premium");
  t.equal(r.body, premiumNeeded("default_hourly_rate").rawMessage);
  r = await create(o, { name: "New", only_admins_may_create_tags: true }, org);
  t.equal(r.status, 402);
  await plans.setOrganizationPlan({ organizationId: BigInt(org), paid: true });

  for (const [body, message] of [
    [{}, workspaceNameNil().rawMessage],
    [{ name: "  " }, workspaceNameEmpty().rawMessage],
    [{ name: "x".repeat(141) }, "workspace name must not be longer than 140"],
    [{ name: "With stranger", admins: [stranger.id] }, workspaceAdminUnknown().rawMessage],
    [{ name: "New", rounding: 5 }, roundingInvalid().rawMessage],
  ] as const) {
    const res = await create(o, body, org);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const existing = (await db("workspaces").where({ organization_id: org }).first("name")).name;
  r = await create(o, { name: existing.toUpperCase() }, org);
  t.equal(r.status, 400);
  t.equal(r.body, workspaceNameTaken().rawMessage);

  for (const [u, id, status, body] of [
    [plain, org, 403, "Forbidden"],
    [stranger, org, 404, "Organization not found/accessible"],
    [o, 999999999, 404, "Organization not found/accessible"],
  ] as const) {
    const res = await create(u, { name: "Nope" }, id);
    t.equal(res.status, status);
    t.equal(res.body, body);
  }

  const before = (await accountEvents(db)).length;
  r = await create(o, { name: " Second ", admins: [other.id], only_admins_may_create_projects: true, reports_collapse: true }, org);
  t.equal(r.status, 200, r.text);
  t.same(Object.keys(r.body).sort(), WORKSPACE_FIELDS.sort());
  t.match(r.body, { name: "Second", organization_id: org, admin: true, role: "admin", only_admins_may_create_projects: true, reports_collapse: true, premium: true });
  const newId = r.body.id;
  t.match((await get(other, newId)).body, { admin: true, role: "admin" }, "the admins listed administer it");
  t.equal((await get(plain, newId)).status, 403, "other members are not members of it");
  const events = (await accountEvents(db)).slice(before).map((e) => `${e.entity} ${e.action} ${e.workspaceId}`);
  t.same(events, [`workspace created ${newId}`, `workspace_user created ${newId}`, `workspace_user created ${newId}`]);

  await db("organizations").where({ id: org }).update({ max_workspaces: 2 });
  r = await create(o, { name: "Third" }, org);
  t.equal(r.status, 400);
  t.equal(r.body, organizationWorkspaceLimit().rawMessage);
  await db("organizations").where({ id: org }).update({ max_workspaces: 20 });

  const many = await sys.signup("Many");
  await addMember(db, org, many, { admin: true, workspaces: [] });
  const [{ id: spareOrg }] = await db("organizations").where({ owner_id: many.id }).select("id");
  const rows = Array.from({ length: 99 }, (_, i) => ({ organization_id: spareOrg, name: `filler ${i}`, created_at: new Date(), updated_at: new Date() }));
  for (const row of rows) {
    const [id] = await db("workspaces").insert(row);
    await db("workspace_users").insert({ workspace_id: id, user_id: many.id, admin: false, role: "user", active: true });
  }
  r = await create(many, { name: "Too many" }, org);
  t.equal(r.status, 400);
  t.equal(r.body, "User can have at most 100 workspaces");
});

t.test("statistics: a workspace's for members, an organization's for its admins", async (t) => {
  const res = await sys.api("GET", `/api/v9/workspaces/${wid}/statistics`, { auth: member.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body, { admins: [{ name: "Owner", user_id: owner.id }], groups_count: 0, members_count: 3 });
  const denied = await sys.api("GET", `/api/v9/workspaces/${wid}/statistics`, { auth: stranger.auth });
  t.equal(denied.status, 403);
  t.equal(denied.body, "User does not have access to this resource.");

  const all = await sys.api("GET", `/api/v9/organizations/${organizationId}/workspaces/statistics`, { auth: orgAdmin.auth });
  t.equal(all.status, 200, all.text);
  t.same(all.body, { [wid]: { admins: [{ name: "Owner", user_id: owner.id }], groups_count: 0, members_count: 3 } });
  t.equal((await sys.api("GET", `/api/v9/organizations/${organizationId}/workspaces/statistics`, { auth: member.auth })).status, 403);
  t.equal((await sys.api("GET", `/api/v9/organizations/${organizationId}/workspaces/statistics`, { auth: stranger.auth })).status, 403);
  t.equal((await sys.api("GET", `/api/v9/organizations/999999999/workspaces/statistics`, { auth: owner.auth })).status, 404);

  const group = await sys.api("POST", `/api/v9/organizations/${organizationId}/groups`, { auth: owner.auth, body: { name: "Counted", workspaces: [wid] } });
  t.equal(group.status, 200, group.text);
  t.equal((await sys.api("GET", `/api/v9/workspaces/${wid}/statistics`, { auth: member.auth })).body.groups_count, 1, "a group assigned to the workspace is counted");
  t.equal((await sys.api("GET", `/api/v9/organizations/${organizationId}/workspaces/statistics`, { auth: orgAdmin.auth })).body[wid].groups_count, 1);
});

t.test("time entry constraints: members read them, workspace admins set them", async (t) => {
  const path = `/api/v9/workspaces/${wid}/time_entry_constraints`;
  const none = { description_present: false, project_present: false, tag_present: false, task_present: false, time_entry_constraints_enabled: false };
  let r = await sys.api("GET", path, { auth: member.auth });
  t.equal(r.status, 200, r.text);
  t.same(r.body, none);
  r = await sys.api("POST", path, { auth: member.auth, body: { project_present: true } });
  t.equal(r.status, 400);
  t.equal(r.body, "Admin permissions required");
  r = await sys.api("POST", path, { auth: stranger.auth, body: { project_present: true } });
  t.equal(r.status, 403);
  t.equal((await sys.api("GET", path, { auth: stranger.auth })).status, 403);
  r = await sys.api("POST", path, { auth: owner.auth, body: { project_present: true, time_entry_constraints_enabled: true } });
  t.equal(r.status, 200, r.text);
  t.same(r.body, { wid });
  t.same((await sys.api("GET", path, { auth: member.auth })).body, { ...none, project_present: true, time_entry_constraints_enabled: true });
  t.match((await get(owner)).body.te_constraints, { project_present: true, time_entry_constraints_enabled: true });
  t.same((await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/time_entry_constraints`, { auth: stranger.auth })).body, none, "other workspaces untouched");
});

t.test("every workspace answer carries csv_upload and subscription, null, after the other fields", async (t) => {
  const o = await sys.signup("Uploads");
  const org = await ownOrganization(sys, o);
  await plans.setOrganizationPlan({ organizationId: BigInt(org), paid: true });
  const created = await create(o, { name: "Created" }, org);
  const answers: [string, Record<string, unknown>][] = [
    ["GET /workspaces/{id}", (await get(o, o.workspaceId)).body],
    ["PUT /workspaces/{id}", (await put(o, { name: "Changed" }, o.workspaceId)).body],
    ["POST /organizations/{id}/workspaces", created.body],
    ...((await sys.api("GET", "/api/v9/workspaces", { auth: o.auth })).body as Record<string, unknown>[]).map((w) => ["GET /workspaces", w] as [string, Record<string, unknown>]),
    ...((await sys.api("GET", "/api/v9/me/workspaces", { auth: o.auth })).body as Record<string, unknown>[]).map((w) => ["GET /me/workspaces", w] as [string, Record<string, unknown>]),
  ];
  t.equal(answers.length, 7);
  for (const [route, body] of answers) {
    t.same(Object.keys(body).sort(), [...WORKSPACE_FIELDS].sort(), route);
    t.same([body.csv_upload, body.subscription], [null, null], route);
    t.same(Object.keys(body).slice(-2), ["csv_upload", "subscription"], `${route}: appended, the other fields where they were`);
  }
});

t.test("the plan is the organization's: a paid organization's workspaces are premium, new ones included, and say so", async (t) => {
  const o = await sys.signup("PaidOwner");
  const org = await ownOrganization(sys, o);
  t.match((await get(o, o.workspaceId)).body, { premium: false, business_ws: false }, "free");
  await plans.setOrganizationPlan({ organizationId: BigInt(org), paid: true });
  t.match((await get(o, o.workspaceId)).body, { premium: true, business_ws: true }, "the organization's first workspace");
  const premiumBody = { name: "Premium from the start", default_currency: "EUR", default_hourly_rate: 30, rounding: 1, rounding_minutes: 15, projects_billable_by_default: true, only_admins_see_billable_rates: true, only_admins_may_create_tags: true };
  const made = await create(o, premiumBody, org);
  t.equal(made.status, 200, made.text);
  t.match(made.body, { ...premiumBody, premium: true, business_ws: true });
  const changed = await put(o, { default_currency: "GBP" }, made.body.id);
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { default_currency: "GBP", premium: true });
  t.match(await identity.checkWorkspaceAccess({ userId: BigInt(o.id), workspaceId: BigInt(made.body.id) }), { allowed: true, premium: true }, "what other services are told");
  const listed = (await sys.api("GET", "/api/v9/me/workspaces", { auth: o.auth })).body as { premium: boolean; business_ws: boolean }[];
  t.same(listed.map((w) => [w.premium, w.business_ws]), [[true, true], [true, true]]);
  const events = (await accountEvents(db)).filter((e) => e.entity === "workspace" && e.workspaceId === String(made.body.id));
  t.ok(events.length > 0);

  await plans.setOrganizationPlan({ organizationId: BigInt(org), paid: false });
  t.match((await get(o, made.body.id)).body, { premium: false, business_ws: false, default_currency: "GBP" }, "free again: settings stay, premium goes");
  const refused = await put(o, { default_currency: "CHF" }, made.body.id);
  t.same([refused.status, refused.body], [402, premiumNeeded("default_currency").rawMessage]);
  t.match(await identity.checkWorkspaceAccess({ userId: BigInt(o.id), workspaceId: BigInt(made.body.id) }), { premium: false });
});

t.test("track:workspace plan (SetWorkspacePlan) sets the plan of the workspace's organization", async (t) => {
  const o = await sys.signup("ByWorkspace");
  const org = await ownOrganization(sys, o);
  await identity.setWorkspacePlan({ workspaceId: BigInt(o.workspaceId), premium: true });
  const orgs = (await sys.api("GET", "/api/v9/me/organizations", { auth: o.auth })).body as { id: number; pricing_plan_id: number; is_multi_workspace_enabled: boolean }[];
  t.match(orgs.find((x) => x.id === org), { pricing_plan_id: 1, is_multi_workspace_enabled: true });
  const second = await create(o, { name: "Second", default_currency: "EUR" }, org);
  t.equal(second.status, 200, second.text);
  t.match(second.body, { premium: true, default_currency: "EUR" });
  await identity.setWorkspacePlan({ workspaceId: BigInt(second.body.id), premium: false });
  t.match((await get(o, o.workspaceId)).body, { premium: false }, "every workspace of the organization");
});
