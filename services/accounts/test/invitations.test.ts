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
  const m = /https:\/\/track\.example\.com\/api\/v9\/organizations\/invitations\/(\S+)\/accept/.exec(mails()[nth - 1].mail.text ?? "");
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
  t.match(a.invite_url, /^https:\/\/track\.example\.com\/api\/v9\/organizations\/invitations\/[\w-]+\/accept$/);
  t.match(b, { email: newcomer, recipient_id: 0 });

  const invited = await sys.api("GET", `/api/v9/organizations/${organizationId}/users?active_status=invited`, { auth: owner.auth });
  t.same(invited.body.map((u: { user_id: number }) => u.user_id), [existing.id], "the existing account is listed as invited");

  const code = await mailedCode(existing.email);
  t.equal(a.invite_url, `https://track.example.com/api/v9/organizations/invitations/${code}/accept`, "the mail carries the answer's URL");
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
