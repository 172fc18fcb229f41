import t from "tap";
import { startTestSystem } from "../../../test/support/harness.js";
import { connectDatabase } from "../../../lib/db.js";
import { emailTaken, invalidEmail, missingEmail, timezoneInvalid } from "../errors.js";

const sys = await startTestSystem(t);
const password = "s3cret-enough";

function cookieFrom(res: { headers: Headers }): string {
  const header = res.headers.get("set-cookie") ?? "";
  return header.split(";")[0];
}

t.test("sign-up creates a user with an organization and a workspace, signs in, and shows the API token", async (t) => {
  const res = await sys.api("POST", "/api/signup", {
    body: { email: "Ann@Example.com", password, display_name: "Ann", tos_accepted_for: "track", remember_me: true, timezone: "Europe/Tallinn" },
  });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: Number, email: "ann@example.com", fullname: "Ann", timezone: "Europe/Tallinn", default_workspace_id: Number, has_password: true });
  t.match(res.body.api_token, /^[0-9a-f]{32}$/);
  const setCookie = res.headers.get("set-cookie")!;
  t.match(setCookie, /^__Secure-accounts-session=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax/);
  const me = await sys.api("GET", "/api/v9/me", { auth: { basic: [res.body.api_token, "api_token"] } });
  t.equal(me.status, 200);
  t.equal(me.body.api_token, res.body.api_token, "its owner reads the token again on /me");
  t.equal(me.body.default_workspace_id, res.body.default_workspace_id);
});

t.test("sign-up rejects bad input and changes nothing", async (t) => {
  const cases: [unknown, string][] = [
    [{ email: "", password }, missingEmail().rawMessage],
    [{ email: "not-an-email", password }, invalidEmail().rawMessage],
    [{ email: "nul\u0000@example.com", password }, invalidEmail().rawMessage],
    [{ email: "bell@exam\u0007ple.com", password }, invalidEmail().rawMessage],
    [{ email: "del@example.co\u007f", password }, invalidEmail().rawMessage],
    [{ email: "bob@example.com", password: "short" }, "Password should be at least 6 characters"],
    [{ email: "bob@example.com", password, timezone: "Mars/Olympus" }, timezoneInvalid().rawMessage],
    [{ email: "ann@example.com", password }, emailTaken().rawMessage],
    [{ email: "ANN@example.com", password }, emailTaken().rawMessage],
    [{ email: 7, password }, "Invalid value for email: expected string, got number"],
  ];
  for (const [body, message] of cases) {
    const res = await sys.api("POST", "/api/signup", { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
    t.notOk(res.headers.get("set-cookie"), "no session for a refused sign-up");
  }
  const bob = await sys.api("POST", "/api/sessions", { body: { email: "bob@example.com", password } });
  t.equal(bob.status, 403, "no refused sign-up left an account behind");
});

t.test("GET /api/v9/me works with Basic email:password, Basic token:api_token and the session cookie", async (t) => {
  const user = await sys.signup("me");
  const byPassword = await sys.api("GET", "/api/v9/me", { auth: { basic: [user.email, user.password] } });
  t.equal(byPassword.status, 200);
  t.equal(byPassword.body.id, user.id);
  const byToken = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(byToken.body.id, user.id);
  const session = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } });
  t.equal(session.status, 200);
  t.equal(session.body.id, user.id);
  const byCookie = await sys.api("GET", "/api/v9/me", { auth: { cookie: cookieFrom(session) } });
  t.equal(byCookie.status, 200);
  t.equal(byCookie.body.email, user.email);
});

t.test("bad credentials are 403", async (t) => {
  const user = await sys.signup("bad");
  const cases = [
    { basic: [user.email, "wrong password"] as [string, string] },
    { basic: ["nobody@example.com", user.password] as [string, string] },
    { basic: ["0123456789abcdef0123456789abcdef", "api_token"] as [string, string] },
    { cookie: "__Secure-accounts-session=not-a-session" },
    undefined,
  ];
  for (const auth of cases) {
    const res = await sys.api("GET", "/api/v9/me", { auth });
    t.equal(res.status, 403, JSON.stringify(auth));
  }
  const garbage = await sys.api("GET", "/api/v9/me", { headers: { authorization: "Basic %%%notbase64" } });
  t.equal(garbage.status, 403);
  const wrongSession = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: "nope-nope" } });
  t.equal(wrongSession.status, 403);
  t.notOk(wrongSession.headers.get("set-cookie"));
  const missing = await sys.api("POST", "/api/sessions", { body: {} });
  t.equal(missing.status, 400);
});

t.test("DELETE /api/sessions ends the session and clears the cookie", async (t) => {
  const user = await sys.signup("logout");
  const session = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } });
  const cookie = cookieFrom(session);
  const del = await sys.api("DELETE", "/api/sessions", { auth: { cookie } });
  t.equal(del.status, 200);
  t.match(del.headers.get("set-cookie"), /Max-Age=0/);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 403, "the session is gone");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: user.auth })).status, 200, "other credentials still work");
});

t.test("POST /api/v9/me/sessions turns Basic credentials into a session cookie", async (t) => {
  const user = await sys.signup("quick");
  const res = await sys.api("POST", "/api/v9/me/sessions", { auth: user.auth });
  t.equal(res.status, 200);
  const me = await sys.api("GET", "/api/v9/me", { auth: { cookie: cookieFrom(res) } });
  t.equal(me.body.id, user.id);
});

t.test("resetting the API token invalidates the old one", async (t) => {
  const user = await sys.signup("reset");
  const res = await sys.api("POST", "/api/v9/me/reset_token", { auth: user.auth });
  t.equal(res.status, 200);
  t.match(res.body, /^[0-9a-f]{32}$/);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: user.auth })).status, 403);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { basic: [res.body, "api_token"] } })).status, 200);
});

t.test("identity headers sent by a client are ignored", async (t) => {
  const user = await sys.signup("forger");
  const res = await sys.api("GET", "/api/v9/me", { headers: { "x-user-id": String(user.id), "x-internal-token": "guess" } });
  t.equal(res.status, 403);
});

t.test("passwords and tokens are stored hashed", async (t) => {
  const user = await sys.signup("hashed");
  const knex = await connectDatabase(sys.config, "accounts");
  t.teardown(() => knex.destroy());
  const row = await knex("users").where({ id: user.id }).first();
  t.match(row.password_hash, /^scrypt\$/);
  t.notOk(row.password_hash.includes(user.password));
  t.not(row.api_token_hash, user.apiToken);
  t.match(row.api_token_hash, /^[0-9a-f]{64}$/);
});
