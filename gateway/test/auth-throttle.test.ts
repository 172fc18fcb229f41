import t from "tap";
import { startTestSystem } from "../../test/support/harness.js";

const sys = await startTestSystem(t);

t.test("repeated failed authentication is answered 429 in each family's format", async (t) => {
  const user = await sys.signup("victim");
  let last = await sys.api("GET", "/api/v9/me", { auth: { basic: [user.email, "guess-0"] } });
  for (let i = 1; i < 40 && last.status === 403; i++) {
    last = await sys.api("GET", "/api/v9/me", { auth: { basic: [user.email, `guess-${i}`] } });
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
