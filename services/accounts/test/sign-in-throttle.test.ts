import t, { type Test } from "tap";
import { randomBytes } from "node:crypto";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { ManualClock } from "../../../lib/clock.js";
import { connectDatabase } from "../../../lib/db.js";
import { Directory } from "../../../lib/directory.js";
import { ERROR_HEADER } from "../../../lib/errors.js";
import { createLogger } from "../../../lib/logger.js";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { createAccountsService } from "../index.js";
import { accountKey, SIGN_IN_POLICY } from "../users/sign-in-throttle.js";

/**
 * Failed password checks are throttled per account, in the accounts database: ten failures
 * within fifteen minutes, then every password check of the account is refused until the oldest
 * failure leaves the window. The gateway's own throttle (30 failed authentications a minute per
 * client address, in its memory) counts only failed Basic authentications: the tests here stay
 * under it, using POST /api/sessions wherever the route does not matter.
 */

const clock = new ManualClock();
const sys = await startTestSystem(t, { clock });
const accounts = await connectDatabase(sys.config, "accounts");
t.teardown(() => accounts.destroy());

const REFUSAL = "Too many failed sign-in attempts; try again later";
const MINUTE = 60_000;
const WINDOW = SIGN_IN_POLICY.windowMs;

/** A second accounts replica on the same database, called like the gateway calls the first. */
const replica = await createAccountsService({ config: sys.config, clock, bus: sys.bus, directory: new Directory(sys.config), log: createLogger("silent") });
t.teardown(() => replica.close());
const replicaDirectory = new Directory(sys.config);
replicaDirectory.registerLocal("accounts", replica.routes, [], [replica.access]);

const identityA = sys.directory.client("accounts", IdentityService);
const identityB = replicaDirectory.client("accounts", IdentityService);

const signIn = (email: string, password: string) => sys.api("POST", "/api/sessions", { body: { email, password } });

const unknownEmail = () => `nobody.${randomBytes(4).toString("hex")}@example.com`;

/** The Connect code an Authenticate call ends with ("Ok" when it succeeds), and its error. */
async function authenticate(identity: Client<typeof IdentityService>, username: string, password: string): Promise<{ code: string; error?: ConnectError }> {
  try {
    await identity.authenticate({ username, password });
    return { code: "Ok" };
  } catch (err) {
    const error = ConnectError.from(err);
    return { code: Code[error.code], error };
  }
}

async function failSignIns(t: Test, email: string, n: number) {
  for (let i = 0; i < n; i++) t.equal((await signIn(email, "wrong password")).status, 403, `failure ${i + 1} is 403`);
}

async function failuresOf(email: string): Promise<number> {
  const [{ n }] = await accounts("sign_in_failures").where({ account_key: accountKey(email) }).count({ n: "*" });
  return Number(n);
}

t.test("ten wrong passwords answer 403; the eleventh try, even the right password, answers 429 until the oldest failure leaves the window", async (t) => {
  const user = await sys.signup("locked");
  await failSignIns(t, user.email, 10);
  const refused = await signIn(user.email, user.password);
  t.equal(refused.status, 429);
  t.equal(refused.body, REFUSAL);
  t.notOk(refused.headers.get("set-cookie"), "no session");
  clock.advance(WINDOW - 1000);
  t.equal((await signIn(user.email, user.password)).status, 429, "a second before the window ends, still refused");
  clock.advance(1000);
  const signedIn = await signIn(user.email, user.password);
  t.equal(signedIn.status, 200, "once the failures left the window, the right password signs in");
  t.equal(signedIn.body.id, user.id);
});

t.test("Basic email:password on any route is throttled with the account; API tokens and sessions are not password checks", async (t) => {
  const user = await sys.signup("basic");
  const session = await signIn(user.email, user.password);
  const cookie = (session.headers.get("set-cookie") ?? "").split(";")[0];
  const clients = `/api/v9/workspaces/${user.workspaceId}/clients`;
  for (let i = 0; i < 10; i++) {
    const path = i % 2 ? "/api/v9/me" : clients;
    t.equal((await sys.api("GET", path, { auth: { basic: [user.email, "wrong password"] } })).status, 403, `failure ${i + 1} on ${path}`);
  }
  for (const path of ["/api/v9/me", clients]) {
    const refused = await sys.api("GET", path, { auth: { basic: [user.email, user.password] } });
    t.equal(refused.status, 429, `right password on ${path}`);
    t.equal(refused.body, REFUSAL);
  }
  t.equal((await signIn(user.email, user.password)).status, 429, "sign-in shares the count");
  t.equal((await sys.api("GET", clients, { auth: user.auth })).status, 200, "the API token still works");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 200, "the session still works");
});

t.test("failures for an unknown e-mail are throttled the same way, whatever its case and spacing", async (t) => {
  const email = unknownEmail();
  const spellings = [email, email.toUpperCase(), ` ${email} `, email.replace("nobody", "NoBody")];
  for (let i = 0; i < 10; i++) t.equal((await signIn(spellings[i % spellings.length], "guess")).status, 403, `failure ${i + 1}`);
  const refused = await signIn(email, "guess");
  t.equal(refused.status, 429);
  t.equal(refused.body, REFUSAL);
});

t.test("a right password between failures does not reset the count", async (t) => {
  const user = await sys.signup("interleaved");
  await failSignIns(t, user.email, 5);
  t.equal((await signIn(user.email, user.password)).status, 200);
  await failSignIns(t, user.email, 5);
  t.equal((await signIn(user.email, user.password)).status, 429);
});

t.test("one account's failures do not throttle another", async (t) => {
  const locked = await sys.signup("neighbour");
  const other = await sys.signup("other");
  await failSignIns(t, locked.email, 10);
  t.equal((await signIn(locked.email, locked.password)).status, 429);
  t.equal((await signIn(other.email, other.password)).status, 200);
});

t.test("the refusal carries x-retry-after: the seconds until the oldest failure leaves the window", async (t) => {
  const user = await sys.signup("retry");
  for (let i = 0; i < 10; i++) {
    t.equal((await authenticate(identityA, user.email, "wrong")).code, "Unauthenticated");
    clock.advance(MINUTE);
  }
  // Failures at minutes 0..9; now minute 10: the first leaves at minute 15.
  const refused = await authenticate(identityA, user.email, user.password);
  t.equal(refused.code, "ResourceExhausted");
  t.equal(refused.error?.rawMessage, REFUSAL);
  t.equal(refused.error?.metadata.get(ERROR_HEADER.retryAfter), "300");
  clock.advance(5 * MINUTE);
  t.equal((await authenticate(identityA, user.email, "wrong")).code, "Unauthenticated", "the first failure left: one more try");
  const again = await authenticate(identityA, user.email, user.password);
  t.equal(again.code, "ResourceExhausted", "and the window is full again");
  t.equal(again.error?.metadata.get(ERROR_HEADER.retryAfter), "60", "until the failure of minute 1 leaves");
});

t.test("replicas on one database share the count", async (t) => {
  const user = await sys.signup("replicas");
  for (let i = 0; i < 10; i++) t.equal((await authenticate(i % 2 ? identityB : identityA, user.email, "wrong")).code, "Unauthenticated");
  t.equal((await authenticate(identityA, user.email, user.password)).code, "ResourceExhausted", "replica A refuses");
  t.equal((await authenticate(identityB, user.email, user.password)).code, "ResourceExhausted", "replica B refuses");
  t.equal(await failuresOf(user.email), 10, "the count is in the accounts database");
  const holding = await accounts("sign_in_failures").where("account_key", "like", `%${user.email}%`).count({ n: "*" });
  t.equal(Number(holding[0].n), 0, "which holds the key hashed, not the e-mail");
});

t.test("checks at once, on two replicas, answer at most ten wrong passwords", async (t) => {
  const user = await sys.signup("concurrent");
  const email = unknownEmail();
  for (const target of [user.email, email]) {
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => authenticate(i % 2 ? identityB : identityA, target, `guess ${i}`)));
    const codes = outcomes.map((o) => o.code);
    t.equal(codes.filter((c) => c === "Unauthenticated").length, 10, `${target}: exactly ten answered "wrong"`);
    t.equal(codes.filter((c) => c === "ResourceExhausted").length, 20, `${target}: the rest were refused`);
    t.equal(await failuresOf(target), 10);
  }
  t.equal((await authenticate(identityA, user.email, user.password)).code, "ResourceExhausted");
});

t.test("API-token and session checks are not counted", async (t) => {
  const user: TrackUser = await sys.signup("tokens");
  for (let i = 0; i < 12; i++) {
    t.equal((await authenticate(identityA, user.apiToken, "api_token")).code, "Ok");
    t.equal((await identityA.authenticate({ sessionToken: `forged-${i}` }).then(() => "Ok", (e) => Code[ConnectError.from(e).code])), "Unauthenticated");
  }
  t.equal(await failuresOf(user.email), 0);
  t.equal((await authenticate(identityA, user.email, user.password)).code, "Ok");
});

t.test("failures that left the window are purged when a failure is written", async (t) => {
  const user = await sys.signup("purged");
  await failSignIns(t, user.email, 3);
  t.equal(await failuresOf(user.email), 3);
  clock.advance(WINDOW);
  t.equal((await signIn(unknownEmail(), "guess")).status, 403, "another account's failure");
  t.equal(await failuresOf(user.email), 0, "the old failures are gone");
  const [{ n }] = await accounts("sign_in_failures").where("failed_at", "<=", new Date(clock.now().getTime() - WINDOW)).count({ n: "*" });
  t.equal(Number(n), 0, "no failure older than the window is left, of any account");
});
