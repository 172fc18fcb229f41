import t from "tap";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { startSmtp } from "../../../test/support/smtp.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";
import { emailsMissing, invitationCodeInvalid, invitationCodeNotFound, invitationLimitReached, invitationOrganizationMismatch, invitedWorkspaceInvalid, invitedWorkspacesMissing, missingEmail } from "../errors.js";

/**
 * Invitations end to end: the invite URL arrives by mail through a real SMTP server on loopback
 * (on PUBLIC_URL), the invited person accepts or rejects it signed in with that address, the
 * inviter is told by mail; every error row of the specification; the free plan's seats.
 */

const smtp = await startSmtp(t);
const sys: TestSystem = await startTestSystem(t, { env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, PUBLIC_URL: "https://track.example.com" } });

/** The code of the `nth` invitation mail to `to` (waiting for it to arrive). */
async function mailedCode(to: string, nth = 1): Promise<string> {
  const mails = () => smtp.received.filter((d) => d.recipients.includes(to) && /invited you/.test(d.mail.subject ?? ""));
  for (const deadline = Date.now() + 10_000; mails().length < nth; ) {
    if (Date.now() > deadline) throw new Error(`${mails().length} of ${nth} invitation mails to ${to}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const m = /https:\/\/track\.example\.com\/invitations\/(\S+)/.exec(mails()[nth - 1].mail.text ?? "");
  if (!m) throw new Error(`no invite URL in ${mails()[nth - 1].mail.text}`);
  return m[1];
}

async function setUp(name: string) {
  const owner = await sys.signup(name);
  const organizationId = await ownOrganization(sys, owner);
  return { owner, organizationId, invite: (body: unknown, auth = owner.auth) => sys.api("POST", `/api/v9/organizations/${organizationId}/invitations`, { auth, body }) };
}

const inviteBody = (emails: string[], workspaceId: number, extra: Record<string, unknown> = {}) => ({ emails, workspaces: [{ workspace_id: workspaceId, admin: false, role: "user", ...extra }] });

t.test("an existing user and a new address are invited, accept by mail, and join the workspace", async (t) => {
  const { owner, organizationId, invite } = await setUp("inviter");
  const existing = await sys.signup("existing");
  const newcomer = `newcomer.${Date.now()}@example.com`;
  const res = await invite(inviteBody([existing.email, newcomer.toUpperCase()], owner.workspaceId));
  t.equal(res.status, 200, res.text);
  t.same(res.body.messages, []);
  t.equal(res.body.data.length, 2);
  const [a, b] = res.body.data;
  t.match(a, { email: existing.email, invitation_id: Number, organization_id: organizationId, recipient_id: existing.id, sender_id: owner.id, workspaces: [{ user_id: existing.id, workspace_id: owner.workspaceId, workspace_user_id: 0 }] });
  t.match(a.invite_url, /^https:\/\/track\.example\.com\/invitations\/[\w-]+$/, "the invitation's page on PUBLIC_URL");
  t.match(b, { email: newcomer, recipient_id: 0 });

  const invited = await sys.api("GET", `/api/v9/organizations/${organizationId}/users?active_status=invited`, { auth: owner.auth });
  t.same(invited.body.map((u: { user_id: number; email: string }) => [u.user_id, u.email]), [[existing.id, existing.email], [null, newcomer]], "both are listed as invited, the address without an account too");
  const pendingId = invited.body[1].id;

  const code = await mailedCode(existing.email);
  t.equal(a.invite_url, `https://track.example.com/invitations/${code}`, "the mail carries the answer's URL");
  const accepted = await sys.api("POST", `/api/v9/organizations/invitations/${code}/accept`, { auth: existing.auth });
  t.equal(accepted.status, 200, accepted.text);
  t.equal(accepted.body, "OK");
  const spaces = await sys.api("GET", "/api/v9/workspaces", { auth: existing.auth });
  t.ok(spaces.body.some((w: { id: number }) => w.id === owner.workspaceId), "a member of the invited workspace");
  t.equal((await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}/clients`, { auth: existing.auth })).status, 200, "and may act in it");
  for (const deadline = Date.now() + 10_000; !smtp.received.some((d) => d.recipients.includes(owner.email)) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 25));
  t.ok(smtp.received.some((d) => d.recipients.includes(owner.email) && /joined/.test(d.mail.subject ?? "")), "the inviter is told");
  t.equal((await sys.api("POST", `/api/v9/organizations/invitations/${code}/accept`, { auth: existing.auth })).status, 404, "an invitation is accepted once");

  // The new address signs up, then accepts with its own account.
  const newCode = await mailedCode(newcomer);
  const signup = await sys.api("POST", "/api/signup", { body: { email: newcomer, password: "newcomer password", timezone: "UTC" } });
  const auth = { basic: [signup.body.api_token, "api_token"] as [string, string] };
  t.equal((await sys.api("POST", `/api/v9/organizations/invitations/${newCode}/accept`, { auth })).status, 200);
  const users = await sys.api("GET", `/api/v9/organizations/${organizationId}/users`, { auth: owner.auth });
  t.same(users.body.map((u: { email: string }) => u.email).sort(), [owner.email, existing.email, newcomer].sort());
  t.match(users.body.find((u: { email: string }) => u.email === newcomer), { id: pendingId, user_id: signup.body.id, joined: true, invitation_code: null }, "the pending organization user is the one who joined");
});

const USER_FIELDS = [
  "admin", "avatar_url", "can_edit_email", "created_at", "email", "groups", "id", "inactive", "invitation_code", "invitation_id", "joined",
  "labour_cost", "name", "organization_id", "owner", "rate", "role", "updated_at", "user_id", "working_hours_in_minutes", "workspace_count", "workspaces",
];

t.test("an invited address without an account is one of the organization's users: listed, counted, sorted, filtered, deleted", async (t) => {
  const { owner, organizationId, invite } = await setUp("Mona");
  const usersOf = (query = "") => sys.api("GET", `/api/v9/organizations/${organizationId}/users${query}`, { auth: owner.auth });
  const listed = (res: { body: { email: string }[] }) => res.body.map((u) => u.email);
  const existing = await sys.signup("Kim");
  // Addresses are kept lower-case.
  const [ownerEmail, existingEmail] = [owner.email.toLowerCase(), existing.email.toLowerCase()];
  const [zed, adam] = [`zed.${organizationId}@example.com`, `adam.${organizationId}@example.com`];
  const created = await invite(inviteBody([zed, existingEmail, adam], owner.workspaceId));
  t.equal(created.status, 200, created.text);
  const [zedCode, adamCode] = [await mailedCode(zed), await mailedCode(adam)];

  const all = await usersOf();
  t.equal(all.status, 200, all.text);
  t.same(listed(all), [adam, existingEmail, ownerEmail, zed], "sorted on the name, or the address where there is no account yet");
  t.equal(all.headers.get("x-records"), "4", "counted");
  t.equal((await sys.api("GET", `/api/v9/organizations/${organizationId}`, { auth: owner.auth })).body.user_count, 4, "in the organization's user_count too");
  const pending = all.body.find((u: { email: string }) => u.email === zed);
  t.same(Object.keys(pending).sort(), USER_FIELDS, "the organization user's fields");
  t.match(pending, {
    id: Number,
    user_id: null,
    name: null,
    email: zed,
    organization_id: organizationId,
    joined: false,
    inactive: false,
    admin: false,
    owner: false,
    role: "user",
    invitation_code: zedCode,
    invitation_id: created.body.data[0].invitation_id,
    avatar_url: "",
    can_edit_email: false,
    groups: [],
    workspaces: [],
    workspace_count: 0,
    rate: null,
    labour_cost: null,
    working_hours_in_minutes: null,
  });
  t.match(pending.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  t.match(all.body.find((u: { email: string }) => u.email === existingEmail), { user_id: existing.id, joined: false, invitation_id: created.body.data[1].invitation_id, invitation_code: String });
  t.equal(new Set(all.body.map((u: { id: number }) => u.id)).size, 4, "each has its own organization user id");

  t.same(listed(await usersOf("?sort_dir=desc")), [zed, ownerEmail, existingEmail, adam]);
  const page = await usersOf("?per_page=2&page=2");
  t.same([listed(page), page.headers.get("x-pages"), page.headers.get("x-records")], [[ownerEmail, zed], "2", "4"]);
  t.same(listed(await usersOf("?active_status=invited")), [adam, existingEmail, zed]);
  t.same(listed(await usersOf("?active_status=active")), [ownerEmail]);
  t.same(listed(await usersOf("?active_status=active,invited&filter=ZED.")), [zed], "the address filters too");
  t.same(listed(await usersOf("?only_admins=true")), [ownerEmail]);
  t.same(listed(await usersOf(`?workspaces=${owner.workspaceId}`)), [ownerEmail], "no workspace yet");

  const renamed = await sys.api("PUT", `/api/v9/organizations/${organizationId}/users/${pending.id}`, { auth: owner.auth, body: { role: "projectlead" } });
  t.equal(renamed.status, 200, renamed.text);
  t.match((await usersOf("?filter=zed")).body, [{ email: zed, role: "projectlead" }]);

  const removed = await sys.api("PATCH", `/api/v9/organizations/${organizationId}/users`, { auth: owner.auth, body: { delete: [pending.id] } });
  t.equal(removed.status, 200, removed.text);
  t.same(listed(await usersOf()), [adam, existingEmail, ownerEmail]);
  const signup = await sys.api("POST", "/api/signup", { body: { email: zed, password: "zed password", timezone: "UTC" } });
  const zedAuth = { basic: [signup.body.api_token, "api_token"] as [string, string] };
  const revoked = await sys.api("POST", `/api/v9/organizations/invitations/${zedCode}/accept`, { auth: zedAuth });
  t.same([revoked.status, revoked.body], [404, invitationCodeInvalid().rawMessage], "deleting revokes the invitation");
  const existingRow = all.body.find((u: { email: string }) => u.email === existingEmail);
  t.equal((await sys.api("PATCH", `/api/v9/organizations/${organizationId}/users`, { auth: owner.auth, body: { delete: [existingRow.id] } })).status, 200);
  const existingCode = await mailedCode(existingEmail);
  t.equal((await sys.api("POST", `/api/v9/organizations/invitations/${existingCode}/accept`, { auth: existing.auth })).status, 404, "an invited account's invitation too");
  t.same(listed(await usersOf()), [adam, ownerEmail]);
  t.ok(adamCode);
});

t.test("an address invited twice is one pending user holding one seat", async (t) => {
  const { owner, organizationId, invite } = await setUp("twice");
  const twice = `again.${organizationId}@example.com`;
  t.equal((await invite(inviteBody([twice], owner.workspaceId))).status, 200);
  t.equal((await invite(inviteBody([twice.toUpperCase()], owner.workspaceId))).status, 200);
  const users = await sys.api("GET", `/api/v9/organizations/${organizationId}/users?active_status=invited`, { auth: owner.auth });
  t.same(users.body.map((u: { email: string }) => u.email), [twice]);
  t.equal(users.body[0].invitation_code, await mailedCode(twice, 2), "the latest invitation's code");
  const more = await invite(inviteBody([1, 2, 3].map((i) => `other${i}.${organizationId}@example.com`), owner.workspaceId));
  t.equal(more.status, 200, `five seats: the owner, ${twice} and three more`);
  const firstCode = await mailedCode(twice, 1);
  const signup = await sys.api("POST", "/api/signup", { body: { email: twice, password: "twice password", timezone: "UTC" } });
  const auth = { basic: [signup.body.api_token, "api_token"] as [string, string] };
  t.equal((await sys.api("POST", `/api/v9/organizations/invitations/${firstCode}/accept`, { auth })).status, 200, "either invitation joins");
  const joined = await sys.api("GET", `/api/v9/organizations/${organizationId}/users?filter=again.`, { auth: owner.auth });
  t.match(joined.body, [{ email: twice, user_id: signup.body.id, joined: true }]);
  t.equal(joined.body.length, 1);
});

t.test("only the invited address may accept or reject; unknown codes are 404", async (t) => {
  const { owner, invite } = await setUp("guarded");
  const invitee = await sys.signup("invitee");
  const intruder = await sys.signup("intruder");
  t.equal((await invite(inviteBody([invitee.email], owner.workspaceId))).status, 200);
  const code = await mailedCode(invitee.email);
  for (const action of ["accept", "reject"]) {
    const res = await sys.api("POST", `/api/v9/organizations/invitations/${code}/${action}`, { auth: intruder.auth });
    t.equal(res.status, 403, action);
    t.equal(res.body, "Forbidden");
    const unknown = await sys.api("POST", `/api/v9/organizations/invitations/nosuchcode/${action}`, { auth: invitee.auth });
    t.equal(unknown.status, 404);
    t.equal(unknown.body, invitationCodeInvalid().rawMessage);
    t.equal((await sys.api("POST", `/api/v9/organizations/invitations/${code}/${action}`)).status, 403, "credentials are needed");
  }
  t.equal((await sys.api("GET", "/api/v9/workspaces", { auth: intruder.auth })).body.length, 1, "the intruder joined nothing");
});

t.test("rejecting removes the pending membership; the invitation cannot be accepted afterwards", async (t) => {
  const { owner, organizationId, invite } = await setUp("rejected");
  const invitee = await sys.signup("decliner");
  await invite(inviteBody([invitee.email], owner.workspaceId));
  const code = await mailedCode(invitee.email);
  const res = await sys.api("POST", `/api/v9/organizations/invitations/${code}/reject`, { auth: invitee.auth });
  t.equal(res.status, 200, res.text);
  t.equal(res.body, "OK");
  const invited = await sys.api("GET", `/api/v9/organizations/${organizationId}/users?active_status=invited`, { auth: owner.auth });
  t.same(invited.body, []);
  t.equal((await sys.api("POST", `/api/v9/organizations/invitations/${code}/accept`, { auth: invitee.auth })).status, 404);
});

t.test("creating invitations: every error row, and a failed request invites nobody", async (t) => {
  const { owner, organizationId, invite } = await setUp("strict");
  const other = await sys.signup("otherorg");
  const member = await sys.signup("plainmember");
  const db = await accountsDb(t, sys);
  await addMember(db, organizationId, member);
  const before = smtp.received.length;
  for (const [body, message] of [
    [{ emails: [], workspaces: [{ workspace_id: owner.workspaceId }] }, emailsMissing().rawMessage],
    [{ emails: ["a@example.com"], workspaces: [] }, invitedWorkspacesMissing().rawMessage],
    [inviteBody(["  "], owner.workspaceId), missingEmail().rawMessage],
    [inviteBody(["not-an-address"], owner.workspaceId), "Invalid e-mail: 'not-an-address'"],
    [inviteBody(["ok@example.com"], other.workspaceId), invitedWorkspaceInvalid().rawMessage],
    [inviteBody(["ok@example.com"], owner.workspaceId, { role: "emperor" }), "role must be one of admin, user, projectlead, teamlead"],
  ] as const) {
    const res = await invite(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const notAdmin = await invite(inviteBody(["ok@example.com"], owner.workspaceId), member.auth);
  t.equal(notAdmin.status, 403);
  t.equal((await invite(inviteBody(["ok@example.com"], owner.workspaceId), other.auth)).status, 403, "another organization's user");
  const missing = await sys.api("POST", "/api/v9/organizations/999999/invitations", { auth: owner.auth, body: inviteBody(["ok@example.com"], owner.workspaceId) });
  t.equal(missing.status, 400);
  t.equal(missing.body, "Invalid organization id");
  await new Promise((r) => setTimeout(r, 200));
  t.equal(smtp.received.length, before, "no mail went out");
  const invited = await sys.api("GET", `/api/v9/organizations/${organizationId}/users?active_status=invited`, { auth: owner.auth });
  t.same(invited.body, [], "nobody was invited");
  const already = await invite(inviteBody([member.email], owner.workspaceId));
  t.equal(already.status, 200);
  t.same(already.body.data, []);
  t.same(already.body.messages, [`User with e-mail '${member.email}' is already a member of the organization`]);
});

t.test("the free plan holds five seats, invited users included; a paid plan more", async (t) => {
  const { owner, organizationId, invite } = await setUp("seats");
  const ok = await invite(inviteBody([1, 2, 3, 4].map((i) => `seat${i}.${organizationId}@example.com`), owner.workspaceId));
  t.equal(ok.status, 200, ok.text);
  const full = await invite(inviteBody([`seat5.${organizationId}@example.com`], owner.workspaceId));
  t.equal(full.status, 400);
  t.equal(full.body, "Active user limit is 5. Upgrade to add more active users");
  await sys.directory.client("accounts", OrganizationAdminService).setOrganizationPlan({ organizationId: BigInt(organizationId), paid: true });
  t.equal((await invite(inviteBody([`seat5.${organizationId}@example.com`], owner.workspaceId))).status, 200);
});

t.test("an inactive member cannot be invited again", async (t) => {
  const { owner, organizationId, invite } = await setUp("inactive");
  const sleeper = await sys.signup("sleeper");
  const db = await accountsDb(t, sys);
  await addMember(db, organizationId, sleeper, { inactive: true });
  const res = await invite(inviteBody([sleeper.email], owner.workspaceId));
  t.equal(res.status, 400);
  t.equal(res.body, `User with e-mail '${sleeper.email}' is already an inactive member of the organization`);
});

t.test("an organization sends at most 20 invitations a day on the free plan", async (t) => {
  const { owner, invite } = await setUp("limited");
  const invitee = await sys.signup("popular");
  for (let i = 0; i < 20; i++) t.equal((await invite(inviteBody([invitee.email], owner.workspaceId))).status, 200, `invitation ${i + 1}`);
  const res = await invite(inviteBody([invitee.email], owner.workspaceId));
  t.equal(res.status, 400);
  t.equal(res.body, invitationLimitReached().rawMessage);
});

t.test("resending mails the same invite URL again; by id or code; errors", async (t) => {
  const { owner, organizationId, invite } = await setUp("resender");
  const other = await setUp("elsewhere");
  const invitee = await sys.signup("forgetsmail");
  const created = (await invite(inviteBody([invitee.email], owner.workspaceId))).body.data[0];
  const code = await mailedCode(invitee.email);
  const byId = await sys.api("PUT", `/api/v9/organizations/${organizationId}/invitations/${created.invitation_id}/resend`, { auth: owner.auth });
  t.equal(byId.status, 200, byId.text);
  t.equal(byId.body, "OK");
  t.equal(await mailedCode(invitee.email, 2), code, "the same link again");
  t.equal((await sys.api("PUT", `/api/v9/organizations/${organizationId}/invitations/${code}/resend`, { auth: owner.auth })).status, 200, "by code");
  const mismatch = await sys.api("PUT", `/api/v9/organizations/${other.organizationId}/invitations/${code}/resend`, { auth: other.owner.auth });
  t.equal(mismatch.status, 400);
  t.equal(mismatch.body, invitationOrganizationMismatch().rawMessage);
  const unknown = await sys.api("PUT", `/api/v9/organizations/${organizationId}/invitations/999999/resend`, { auth: owner.auth });
  t.equal(unknown.status, 404);
  t.equal(unknown.body, invitationCodeNotFound().rawMessage);
  t.equal((await sys.api("PUT", `/api/v9/organizations/${organizationId}/invitations/${code}/resend`, { auth: invitee.auth })).status, 403, "admins only");
});
