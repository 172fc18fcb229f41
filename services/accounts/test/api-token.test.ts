import t from "tap";
import { startTestSystem } from "../../../test/support/harness.js";
import { connectDatabase } from "../../../lib/db.js";
import { SecretBox } from "../../../lib/secret-box.js";

/** The API token: shown to its owner on /me and the sign-in answers, kept sealed and hashed. */

const sys = await startTestSystem(t);
const accounts = await connectDatabase(sys.config, "accounts");
t.teardown(() => accounts.destroy());

function cookieFrom(res: { headers: Headers }): string {
  return (res.headers.get("set-cookie") ?? "").split(";")[0];
}

/** The columns of the user's row that hold `secret`, read as a dump would show them. */
async function columnsHolding(id: number, secret: string): Promise<string[]> {
  const row: Record<string, unknown> = await accounts("users").where({ id }).first();
  return Object.entries(row)
    .filter(([, v]) => (v instanceof Date ? v.toISOString() : String(v)).includes(secret))
    .map(([column]) => column);
}

t.test("GET /api/v9/me answers the caller's API token, whichever credentials it came with", async (t) => {
  const user = await sys.signup("me");
  const session = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } });
  for (const auth of [user.auth, { basic: [user.email, user.password] as [string, string] }, { cookie: cookieFrom(session) }]) {
    const me = await sys.api("GET", "/api/v9/me", { auth });
    t.equal(me.status, 200, JSON.stringify(auth));
    t.equal(me.body.api_token, user.apiToken, JSON.stringify(auth));
  }
});

t.test("the sign-in answers carry the API token", async (t) => {
  const user = await sys.signup("signin");
  const byPassword = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } });
  t.equal(byPassword.status, 200);
  t.equal(byPassword.body.api_token, user.apiToken, "POST /api/sessions");
  const byBasic = await sys.api("POST", "/api/v9/me/sessions", { auth: { basic: [user.email, user.password] } });
  t.equal(byBasic.status, 200);
  t.equal(byBasic.body.api_token, user.apiToken, "POST /api/v9/me/sessions");
});

t.test("the users row does not reveal the API token: hashed to authenticate by, sealed with ENCRYPTION_KEY", async (t) => {
  const user = await sys.signup("dump");
  t.same(await columnsHolding(user.id, user.apiToken), [], "no column holds the token");
  const row = await accounts("users").where({ id: user.id }).first();
  t.match(row.api_token_hash, /^[0-9a-f]{64}$/);
  t.match(row.api_token_sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  t.equal(new SecretBox(sys.config.encryptionKey).open(row.api_token_sealed), user.apiToken, "the configured key opens it");
});

t.test("after a reset, /me answers the new token, which alone authenticates", async (t) => {
  const user = await sys.signup("reset");
  const before = await accounts("users").where({ id: user.id }).first("api_token_sealed");
  const reset = await sys.api("POST", "/api/v9/me/reset_token", { auth: user.auth });
  t.equal(reset.status, 200);
  const newToken: string = reset.body;
  t.match(newToken, /^[0-9a-f]{32}$/);
  t.not(newToken, user.apiToken);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: user.auth })).status, 403, "the old token no longer authenticates");
  const me = await sys.api("GET", "/api/v9/me", { auth: { basic: [newToken, "api_token"] } });
  t.equal(me.status, 200);
  t.equal(me.body.api_token, newToken);
  const byPassword = await sys.api("GET", "/api/v9/me", { auth: { basic: [user.email, user.password] } });
  t.equal(byPassword.body.api_token, newToken, "also for a caller who signs in with the password");
  const after = await accounts("users").where({ id: user.id }).first("api_token_sealed");
  t.not(after.api_token_sealed, before.api_token_sealed, "the sealed value was replaced");
  t.same(await columnsHolding(user.id, newToken), [], "no column holds the new token");
  t.same(await columnsHolding(user.id, user.apiToken), [], "nor the old one");
});

t.test("a user from before tokens were sealed answers null, and the token still authenticates", async (t) => {
  const user = await sys.signup("older");
  await accounts("users").where({ id: user.id }).update({ api_token_sealed: null });
  const me = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(me.status, 200);
  t.equal(me.body.api_token, null);
  const reset = await sys.api("POST", "/api/v9/me/reset_token", { auth: user.auth });
  const after = await sys.api("GET", "/api/v9/me", { auth: { basic: [reset.body, "api_token"] } });
  t.equal(after.body.api_token, reset.body, "a reset gives such a user a readable token");
});

t.test("a token sealed with another key answers null rather than failing the answer", async (t) => {
  const user = await sys.signup("rekeyed");
  const other = new SecretBox(Buffer.alloc(32, 7));
  await accounts("users").where({ id: user.id }).update({ api_token_sealed: other.seal(user.apiToken) });
  const me = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(me.status, 200);
  t.equal(me.body.api_token, null);
});
