import t from "tap";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { connectDatabase } from "../../../lib/db.js";
import { beginningOfWeekInvalid, countryIdInvalid, currentPasswordMissing, currentPasswordWrong, defaultWorkspaceInvalid, emailTaken, fullnameInvalid, profileEmailInvalid, timezoneInvalid } from "../errors.js";

/** The caller's own account: PUT /me, /me/logged, the caller's workspaces, closing the account. */

const sys: TestSystem = await startTestSystem(t);

t.test("GET /me/logged answers 200 with good credentials and 403 without", async (t) => {
  const user = await sys.signup("logged");
  const ok = await sys.api("GET", "/api/v9/me/logged", { auth: user.auth });
  t.equal(ok.status, 200);
  t.equal(ok.text, "");
  t.equal((await sys.api("GET", "/api/v9/me/logged")).status, 403);
});

t.test("PUT /me changes the profile and answers the user as GET /me does", async (t) => {
  const user = await sys.signup("profile");
  const res = await sys.api("PUT", "/api/v9/me", { auth: user.auth, body: { fullname: " Ann Smith ", timezone: "Europe/Tallinn", beginning_of_week: 0, country_id: 70 } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: user.id, fullname: "Ann Smith", timezone: "Europe/Tallinn", beginning_of_week: 0, country_id: 70, email: user.email, api_token: user.apiToken, default_workspace_id: user.workspaceId });
  t.equal(res.headers.get("cache-control"), "no-store");
  t.same((await sys.api("GET", "/api/v9/me", { auth: user.auth })).body, res.body);
  const email = await sys.api("PUT", "/api/v9/me", { auth: user.auth, body: { email: `NEW.${user.email}` } });
  t.equal(email.body.email, `new.${user.email}`, "e-mail addresses are kept in lower case");
});

t.test("PUT /me refuses bad values with the real API's messages and changes nothing", async (t) => {
  const user = await sys.signup("badprofile");
  const other = await sys.signup("taken");
  const before = (await sys.api("GET", "/api/v9/me", { auth: user.auth })).body;
  for (const [body, message] of [
    [{ fullname: "  " }, fullnameInvalid().rawMessage],
    [{ email: "not-an-address" }, profileEmailInvalid().rawMessage],
    [{ email: other.email }, emailTaken().rawMessage],
    [{ timezone: "Mars/Olympus" }, timezoneInvalid().rawMessage],
    [{ beginning_of_week: 7 }, beginningOfWeekInvalid().rawMessage],
    [{ beginning_of_week: -1 }, beginningOfWeekInvalid().rawMessage],
    [{ country_id: 0 }, countryIdInvalid().rawMessage],
    // No country has the ISO 3166-1 numeric code 1 or 999.
    [{ country_id: 1 }, countryIdInvalid().rawMessage],
    [{ country_id: 999 }, countryIdInvalid().rawMessage],
    [{ default_workspace_id: other.workspaceId }, defaultWorkspaceInvalid().rawMessage],
    [{ default_workspace_id: 9007199254740993 }, defaultWorkspaceInvalid().rawMessage],
    [{ password: "new password" }, currentPasswordMissing().rawMessage],
    [{ password: "new password", current_password: "wrong password" }, currentPasswordWrong().rawMessage],
    [{ password: "short", current_password: user.password }, "Password should be at least 6 characters"],
  ] as const) {
    const res = await sys.api("PUT", "/api/v9/me", { auth: user.auth, body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message, JSON.stringify(body));
  }
  t.same((await sys.api("GET", "/api/v9/me", { auth: user.auth })).body, before);
});

t.test("a password change needs the current password, keeps the caller's session and ends the others", async (t) => {
  const user = await sys.signup("changer");
  const signIn = async (password: string) => sys.api("POST", "/api/sessions", { body: { email: user.email, password } });
  const cookieOf = (res: { headers: Headers }) => res.headers.get("set-cookie")!.split(";")[0];
  const mine = cookieOf(await signIn(user.password));
  const other = cookieOf(await signIn(user.password));
  const res = await sys.api("PUT", "/api/v9/me", { auth: { cookie: mine }, body: { current_password: user.password, password: "a brand new password" } });
  t.equal(res.status, 200, res.text);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie: mine } })).status, 200, "the caller's session goes on");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie: other } })).status, 403, "another session ended");
  t.equal((await signIn(user.password)).status, 403, "the old password no longer signs in");
  t.equal((await signIn("a brand new password")).status, 200);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: user.auth })).status, 200, "the API token still works");
});

t.test("the caller's workspaces, at /workspaces and /me/workspaces, with the specification's initial settings", async (t) => {
  const user = await sys.signup("spaces");
  const stranger = await sys.signup("elsewhere");
  for (const path of ["/api/v9/workspaces", "/api/v9/me/workspaces"]) {
    const res = await sys.api("GET", path, { auth: user.auth });
    t.equal(res.status, 200, res.text);
    t.equal(res.body.length, 1, "only the caller's own");
    t.match(res.body[0], {
      id: user.workspaceId,
      organization_id: Number,
      name: "spaces's workspace",
      admin: true,
      role: "admin",
      premium: false,
      business_ws: false,
      default_currency: "USD",
      default_hourly_rate: 0,
      only_admins_may_create_projects: false,
      only_admins_may_create_tags: false,
      only_admins_see_billable_rates: false,
      only_admins_see_team_dashboard: false,
      projects_billable_by_default: true,
      projects_private_by_default: true,
      reports_collapse: true,
      rounding: 0,
      rounding_minutes: 0,
      api_token: null,
      server_deleted_at: null,
      te_constraints: { description_present: false, project_present: false, tag_present: false, task_present: false, time_entry_constraints_enabled: false },
    });
    t.match(res.body[0].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    t.notOk(res.body.some((w: { id: number }) => w.id === stranger.workspaceId));
  }
});

t.test("closing the account ends its sessions, token and memberships; sign-in fails; the address is free again", async (t) => {
  const user = await sys.signup("leaving");
  const signin = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } });
  const cookie = signin.headers.get("set-cookie")!.split(";")[0];
  const closed = await sys.api("POST", "/api/me/close_account/track", { auth: { cookie } });
  t.equal(closed.status, 200, closed.text);
  t.match(closed.headers.get("set-cookie"), /Max-Age=0/, "the cookie is cleared");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 403, "the session ended");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: user.auth })).status, 403, "the token ended");
  t.equal((await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } })).status, 403, "sign-in fails");
  t.equal((await sys.api("GET", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth })).status, 403);
  const again = await sys.api("POST", "/api/signup", { body: { email: user.email, password: "another password", timezone: "UTC" } });
  t.equal(again.status, 200, "the address may sign up anew");
  t.not(again.body.id, user.id);
});

t.test("the owner of an organization with other members must hand it over before closing the account", async (t) => {
  const owner = await sys.signup("owning");
  const member = await sys.signup("member");
  const db = await connectDatabase(sys.config, "accounts");
  t.teardown(() => db.destroy());
  const { organization_id } = await db("workspaces").where({ id: owner.workspaceId }).first("organization_id");
  await db("organization_users").insert({ organization_id, user_id: member.id, admin: false, owner: false });
  const res = await sys.api("POST", "/api/me/close_account/track", { auth: owner.auth });
  t.equal(res.status, 400);
  t.match(res.body, /^Hand over the organization .+ to another owner before closing the account$/);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: owner.auth })).status, 200, "nothing changed");
  t.equal((await sys.api("POST", "/api/me/close_account/track", { auth: member.auth })).status, 200, "a member may leave");
  t.equal(await db("organization_users").where({ user_id: member.id }).first(), undefined, "its memberships ended");
});
