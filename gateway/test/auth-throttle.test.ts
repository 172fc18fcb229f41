import t from "tap";
import { startTestSystem } from "../../test/support/harness.js";

const sys = await startTestSystem(t);

t.test("one client address failing authentication repeatedly is answered 429 in each family's format", async (t) => {
  const user = await sys.signup("victim");
  // A different account each time: the per-account limit of the accounts service stays out of the way.
  let last = await sys.api("GET", "/api/v9/me", { auth: { basic: ["guess-0@example.com", "guess"] } });
  for (let i = 1; i < 40 && last.status === 403; i++) {
    last = await sys.api("GET", "/api/v9/me", { auth: { basic: [`guess-${i}@example.com`, "guess"] } });
  }
  t.equal(last.status, 429);
  t.equal(last.body, "Too many failed authentication attempts; try again later");
  t.ok(Number(last.headers.get("retry-after")) > 0);
  const right = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(right.status, 429, "even right credentials wait, so guessing cannot be confirmed");
  const hiring = await sys.api("GET", "/api/v2/openings", { auth: { bearer: "nope" } });
  t.equal(hiring.status, 429);
  t.same(hiring.body, { error: { type: "RateLimitError" } });
});

/** Fails authentication `times` times, each claiming the forwarded address `forwardedFor(i)`. */
async function guess(system: typeof sys, times: number, forwardedFor: (i: number) => string) {
  let last = 0;
  for (let i = 0; i < times; i++) {
    last = (await system.api("GET", "/api/v2/openings", { auth: { bearer: `key_x.guess${i}` }, headers: { "x-forwarded-for": forwardedFor(i) } })).status;
  }
  return last;
}

t.test("X-Forwarded-For counts only from a configured proxy; by default none is believed", async (t) => {
  // By default the forwarded address is ignored: rotating it does not escape the throttle.
  const direct = await startTestSystem(t);
  t.equal(await guess(direct, 40, (i) => `203.0.113.${i}`), 429);

  // Behind a configured proxy (here loopback, where the test's requests come from) forwarded clients are told apart.
  const proxied = await startTestSystem(t, { env: { TRUST_PROXY: "loopback" } });
  t.equal(await guess(proxied, 40, (i) => `203.0.113.${i}`), 401, "forwarded clients are told apart");
  t.equal(await guess(proxied, 40, () => "203.0.113.200"), 429, "one forwarded client is throttled");
});
