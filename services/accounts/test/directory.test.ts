import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";
import { invitationNotFound, organizationOwnerNotFound, searchTermMissing, userCannotBeFound } from "../errors.js";

/**
 * Who the caller may see: users sharing an organization with the caller, the caller's
 * organizations, an organization's owner and detailed users, an invitation by its code.
 */

const clock = new ManualClock(new Date("2026-03-01T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts"] });
const db = await accountsDb(t, sys);

// Organization "Acme": owner Olga, member Bob, deactivated Dora, invited (not joined) Ivan.
const olga = await sys.signup("OlgaAcme");
const acme = await ownOrganization(sys, olga);
await db("organizations").where({ id: acme }).update({ name: "Acme Corp" });
const bob = await sys.signup("BobAcme");
await addMember(db, acme, bob);
const dora = await sys.signup("DoraAcme");
await addMember(db, acme, dora, { inactive: true });
const ivan = await sys.signup("IvanAcme");
await addMember(db, acme, ivan, { joined: false });
// Another tenant: Sam, in an organization of his own.
const sam = await sys.signup("SamOther");
const other = await ownOrganization(sys, sam);

const names = (body: { fullname: string }[]) => body.map((u) => u.fullname);

t.test("GET /users?q= finds the caller's colleagues by name or e-mail, never another tenant's users", async (t) => {
  const res = await sys.api("GET", "/api/v9/users?q=acme", { auth: bob.auth });
  t.equal(res.status, 200, res.text);
  t.same(names(res.body), ["BobAcme", "DoraAcme", "OlgaAcme"], "joined users (deactivated ones too), not the invited one");
  const olgaFound = res.body.find((u: { id: number }) => u.id === olga.id);
  t.equal(olgaFound.api_token, null, "never a token");
  t.equal(olgaFound.default_workspace_id, 0, "another user's default workspace is not shown");
  t.equal(olgaFound.email, olga.email.toLowerCase());
  const self = res.body.find((u: { id: number }) => u.id === bob.id);
  t.equal(self.default_workspace_id, bob.workspaceId, "the caller's own is");

  const bySearch = await sys.api("GET", `/api/v9/users?search=${encodeURIComponent(olga.email.toUpperCase())}`, { auth: bob.auth });
  t.same(names(bySearch.body), ["OlgaAcme"], "`search` works too, on the e-mail, ignoring case");

  const foreign = await sys.api("GET", "/api/v9/users?q=sam", { auth: bob.auth });
  t.same(foreign.body, [], "Sam shares no organization with Bob");
  const fromSam = await sys.api("GET", "/api/v9/users?q=acme", { auth: sam.auth });
  t.same(fromSam.body, [], "nor Acme's users with Sam");
});

t.test("an invited user sees nobody of the organization until joining", async (t) => {
  const res = await sys.api("GET", "/api/v9/users?q=a", { auth: ivan.auth });
  t.same(names(res.body), ["IvanAcme"]);
});

t.test("GET /users without a search term is 400, wildcards are literal", async (t) => {
  for (const q of ["", "?q=", "?q=%20%20"]) {
    const res = await sys.api("GET", `/api/v9/users${q}`, { auth: bob.auth });
    t.equal(res.status, 400, q);
    t.equal(res.body, searchTermMissing().rawMessage);
  }
  const res = await sys.api("GET", "/api/v9/users?q=%25", { auth: bob.auth });
  t.same(res.body, [], "% matches a percent sign only");
});

t.test("GET /users/{id} answers a colleague or the caller; anyone else is 404", async (t) => {
  const res = await sys.api("GET", `/api/v9/users/${olga.id}`, { auth: bob.auth });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: olga.id, fullname: "OlgaAcme", email: olga.email.toLowerCase(), timezone: "UTC", default_workspace_id: 0 });
  t.equal((await sys.api("GET", `/api/v9/users/${bob.id}`, { auth: bob.auth })).body.default_workspace_id, bob.workspaceId);
  for (const [who, target] of [[bob, sam], [sam, olga], [ivan, olga], [bob, ivan]] as const) {
    const refused = await sys.api("GET", `/api/v9/users/${target.id}`, { auth: who.auth });
    t.equal(refused.status, 404, `${who.email} -> ${target.email}`);
    t.equal(refused.body, userCannotBeFound().rawMessage);
  }
  t.equal((await sys.api("GET", "/api/v9/users/99999999", { auth: bob.auth })).status, 404);
  t.equal((await sys.api("GET", "/api/v9/users/abc", { auth: bob.auth })).status, 400);
});

t.test("GET /organizations?q= finds the caller's organizations by name", async (t) => {
  const res = await sys.api("GET", "/api/v9/organizations?q=corp", { auth: bob.auth });
  t.equal(res.status, 200, res.text);
  t.equal(res.body.length, 1);
  t.match(res.body[0].organization, { id: acme, name: "Acme Corp", user_count: 4, pricing_plan_id: 0, is_multi_workspace_enabled: false, max_workspaces: 20 });
  t.same((await sys.api("GET", "/api/v9/organizations?q=corp", { auth: sam.auth })).body, [], "not another tenant's");
  t.same((await sys.api("GET", "/api/v9/organizations?q=corp", { auth: dora.auth })).body, [], "not one the caller was deactivated in");
  const missing = await sys.api("GET", "/api/v9/organizations", { auth: bob.auth });
  t.equal(missing.status, 400);
  t.equal(missing.body, searchTermMissing().rawMessage);
});

t.test("GET /organizations/{id}/owner answers the owner to the organization's members", async (t) => {
  const res = await sys.api("GET", `/api/v9/organizations/${acme}/owner`, { auth: bob.auth });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { avatar_url: "", email: olga.email.toLowerCase(), name: "OlgaAcme", organization_id: acme, user_id: olga.id });
  t.equal(res.body.id, res.body.organization_user_id);
  t.equal(res.body.organization_user_created_at, "2026-03-01T12:00:00+00:00", "a sign-up's organization user was made with its organization");
  for (const who of [sam, ivan, dora]) {
    const refused = await sys.api("GET", `/api/v9/organizations/${acme}/owner`, { auth: who.auth });
    t.equal(refused.status, 403, who.email);
    t.equal(refused.body, "User does not have access to this resource");
  }
});

t.test("an organization without an owner answers 404", async (t) => {
  await db("organization_users").where({ organization_id: other, user_id: sam.id }).update({ owner: false });
  t.teardown(() => db("organization_users").where({ organization_id: other, user_id: sam.id }).update({ owner: true }));
  const res = await sys.api("GET", `/api/v9/organizations/${other}/owner`, { auth: sam.auth });
  t.equal(res.status, 404);
  t.equal(res.body, organizationOwnerNotFound().rawMessage);
});

t.test("GET /organizations/{id}/users/detailed lists the users with their workspaces' details, paginated in headers", async (t) => {
  await db("organization_users").where({ organization_id: acme, user_id: bob.id }).update({ rate: 50, labour_cost: 20, working_hours_in_minutes: 480 });
  const res = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed?per_page=2`, { auth: olga.auth });
  t.equal(res.status, 200, res.text);
  t.equal(res.headers.get("x-records"), "4");
  t.equal(res.headers.get("x-pages"), "2");
  t.equal(res.headers.get("x-page-size"), "2");
  t.same(res.body.map((u: { name: string }) => u.name), ["BobAcme", "DoraAcme"]);
  const b = res.body[0];
  t.ok(res.body.every((u: { created_at: string | null }) => u.created_at !== null), "every user has its times");
  t.match(b, { admin: false, owner: false, joined: true, inactive: false, role_id: 2, user_id: bob.id, organization_id: acme, workspace_count: 1, email: bob.email.toLowerCase(), groups: [] });
  t.same(b.workspaces, [
    {
      admin: false, cost: 20, default_currency: "USD", groups: [], inactive: false, rate: 50, role: "user", role_id: 2, view_edit_billable_rates: false,
      view_edit_labor_costs: false, working_hours: 8, workspace_id: olga.workspaceId, workspace_name: b.workspaces[0].workspace_name, workspace_user_id: b.workspaces[0].workspace_user_id,
    },
  ]);
  const page2 = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed?per_page=2&page=2&active_status=active,invited`, { auth: olga.auth });
  t.same(page2.body.map((u: { name: string }) => u.name), ["OlgaAcme"], "2 active and 1 invited: the second page holds the third");
  t.equal(page2.headers.get("x-records"), "3");
  const invited = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed?active_status=invited`, { auth: olga.auth });
  t.match(invited.body, [{ name: "IvanAcme", joined: false }]);
  const owner = (await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed?only_admins=true`, { auth: olga.auth })).body;
  t.match(owner, [{ name: "OlgaAcme", owner: true, admin: true, role_id: 1, workspaces: [{ admin: true, role: "admin", role_id: 1, view_edit_billable_rates: true, cost: null, rate: null, working_hours: null }] }]);
});

t.test("the detailed list refuses bad parameters, plain members and other tenants", async (t) => {
  const bad = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed?active_status=gone`, { auth: olga.auth });
  t.equal(bad.status, 400);
  t.equal(bad.body, "active_status parameter can contain only 'active', 'inactive' or 'invited'.");
  const foreignWorkspace = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed?workspaces=${sam.workspaceId}`, { auth: olga.auth });
  t.equal(foreignWorkspace.status, 400);
  t.equal(foreignWorkspace.body, "Invalid value sent for 'workspaces'.");
  const member = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed`, { auth: bob.auth });
  t.equal(member.status, 403);
  t.equal(member.body, "User is not authorized to list the organization users");
  const stranger = await sys.api("GET", `/api/v9/organizations/${acme}/users/detailed`, { auth: sam.auth });
  t.equal(stranger.status, 403);
});

t.test("GET /invitations/{code} answers a pending invitation to whoever holds the code", async (t) => {
  const invitee = "newcomer@example.com";
  const sent = await sys.api("POST", `/api/v9/organizations/${acme}/invitations`, { auth: olga.auth, body: { emails: [invitee], workspaces: [{ workspace_id: olga.workspaceId }] } });
  t.equal(sent.status, 200, sent.text);
  const listed = await sys.api("GET", `/api/v9/organizations/${acme}/users?active_status=invited`, { auth: olga.auth });
  const code = listed.body.find((u: { email: string }) => u.email === invitee).invitation_code;
  const res = await sys.api("GET", `/api/v9/invitations/${code}`);
  t.equal(res.status, 200, res.text);
  t.match(res.body, {
    code,
    email: invitee,
    organization_id: acme,
    organization_name: "Acme Corp",
    sender_email: olga.email.toLowerCase(),
    sender_name: "OlgaAcme",
    sso: false,
    token: null,
    workspaces: [{ workspace_id: olga.workspaceId, name: String }],
  });
  t.match(res.body.accounts_signup_url, /\/api\/signup$/);

  const removed = await sys.api("PATCH", `/api/v9/organizations/${acme}/users`, { auth: olga.auth, body: { delete: [listed.body.find((u: { email: string }) => u.email === invitee).id] } });
  t.equal(removed.status, 200, removed.text);
  const gone = await sys.api("GET", `/api/v9/invitations/${code}`);
  t.equal(gone.status, 404, "a revoked invitation is no longer answered");
  t.equal(gone.body, invitationNotFound().rawMessage);
});

t.test("an unknown invitation code is 404", async (t) => {
  const res = await sys.api("GET", "/api/v9/invitations/not-a-code");
  t.equal(res.status, 404);
  t.equal(res.body, invitationNotFound().rawMessage);
});
