import t from "tap";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { startSmtp } from "../../../test/support/smtp.js";
import { connectDatabase } from "../../../lib/db.js";
import { ManualClock } from "../../../lib/clock.js";
import { invalidEmail, missingEmail, resetCodeInvalid } from "../errors.js";

/**
 * Password reset end to end: the code arrives by mail through a real SMTP server on loopback,
 * with a link on PUBLIC_URL (never the request's host), and sets a new password once.
 */

const smtp = await startSmtp(t);
const clock = new ManualClock(new Date());
const sys: TestSystem = await startTestSystem(t, { clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, PUBLIC_URL: "https://track.example.com" } });

/** The code of the newest reset mail to `to`. */
function codeOf(to: string): { code: string; text: string } {
  const mail = [...smtp.received].reverse().find((d) => d.recipients.includes(to))!;
  const text = mail.mail.text ?? "";
  return { code: /Your reset code: (\S+)/.exec(text)![1], text };
}

t.test("a reset code is mailed, sets the new password once, ends the old sessions and signs in", async (t) => {
  const user = await sys.signup("forgetful");
  const old = (await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } })).headers.get("set-cookie")!.split(";")[0];
  const asked = await sys.api("POST", "/api/me/password_reset/request", { body: { email: user.email.toUpperCase() }, headers: { host: "evil.example.com" } });
  t.equal(asked.status, 200, asked.text);
  t.equal(asked.text, "");
  await smtp.until(1);
  const { code, text } = codeOf(user.email);
  t.match(text, `https://track.example.com/reset-password/${code}`, "the page's link is on PUBLIC_URL");
  t.match(text, `https://track.example.com/api/me/password_reset/confirm/${code}`, "and so is the API's");
  t.notMatch(text, "evil.example.com");
  t.equal(smtp.received[0].mail.subject, "Reset your password");

  const confirmed = await sys.api("POST", `/api/me/password_reset/confirm/${code}`, { body: { password: "my new password" } });
  t.equal(confirmed.status, 200, confirmed.text);
  t.match(confirmed.body, { id: user.id, email: user.email });
  const cookie = confirmed.headers.get("set-cookie")!.split(";")[0];
  t.match(cookie, /^__Secure-accounts-session=.+/, "a new session cookie");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 200);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie: old } })).status, 403, "the old session ended");
  t.equal((await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } })).status, 403, "the old password no longer works");
  t.equal((await sys.api("POST", "/api/sessions", { body: { email: user.email, password: "my new password" } })).status, 200);
  const again = await sys.api("POST", `/api/me/password_reset/confirm/${code}`, { body: { password: "yet another password" } });
  t.equal(again.status, 400, "a code works once");
  t.equal(again.body, resetCodeInvalid().rawMessage);
});

t.test("the answer is the same for an address without an account, and no mail goes out", async (t) => {
  const before = smtp.received.length;
  const res = await sys.api("POST", "/api/me/password_reset/request", { body: { email: "nobody.here@example.com" } });
  t.equal(res.status, 200);
  t.equal(res.text, "");
  const user = await sys.signup("known");
  await sys.api("POST", "/api/me/password_reset/request", { body: { email: user.email } });
  await smtp.until(before + 1);
  t.equal(smtp.received.length, before + 1, "only the known address got a mail");
  t.same(smtp.received.at(-1)!.recipients, [user.email]);
});

t.test("codes are stored hashed, expire after an hour, and a wrong code or short password changes nothing", async (t) => {
  const user = await sys.signup("expiring");
  const before = smtp.received.length;
  await sys.api("POST", "/api/me/password_reset/request", { body: { email: user.email } });
  await smtp.until(before + 1);
  const { code } = codeOf(user.email);
  const db = await connectDatabase(sys.config, "accounts");
  t.teardown(() => db.destroy());
  const rows = await db("password_resets").where({ user_id: user.id });
  t.equal(rows.length, 1);
  t.notMatch(JSON.stringify(rows), code, "the code itself is not stored");
  for (const [path, body, message] of [
    [`/api/me/password_reset/confirm/${code}x`, { password: "long enough" }, resetCodeInvalid().rawMessage],
    [`/api/me/password_reset/confirm/${code}`, { password: "short" }, "Password should be at least 6 characters"],
  ] as const) {
    const res = await sys.api("POST", path, { body });
    t.equal(res.status, 400);
    t.equal(res.body, message);
  }
  clock.advance(3600_001);
  const late = await sys.api("POST", `/api/me/password_reset/confirm/${code}`, { body: { password: "long enough" } });
  t.equal(late.status, 400);
  t.equal(late.body, resetCodeInvalid().rawMessage);
  t.equal((await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } })).status, 200, "the password is unchanged");
});

t.test("at most five reset mails an hour per account; more requests answer the same", async (t) => {
  const user = await sys.signup("flooded");
  const before = smtp.received.length;
  for (let i = 0; i < 8; i++) t.equal((await sys.api("POST", "/api/me/password_reset/request", { body: { email: user.email } })).status, 200);
  await smtp.until(before + 5);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(smtp.received.filter((d) => d.recipients.includes(user.email)).length, 5);
});

t.test("a reset lifts the sign-in throttle its owner may have been locked out by", async (t) => {
  const user = await sys.signup("lockedout");
  for (let i = 0; i < 10; i++) await sys.api("POST", "/api/sessions", { body: { email: user.email, password: `guess ${i}` } });
  t.equal((await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } })).status, 429);
  const before = smtp.received.length;
  await sys.api("POST", "/api/me/password_reset/request", { body: { email: user.email } });
  await smtp.until(before + 1);
  const { code } = codeOf(user.email);
  t.equal((await sys.api("POST", `/api/me/password_reset/confirm/${code}`, { body: { password: "fresh password" } })).status, 200);
  t.equal((await sys.api("POST", "/api/sessions", { body: { email: user.email, password: "fresh password" } })).status, 200);
});

t.test("malformed requests answer 400 and send nothing", async (t) => {
  const before = smtp.received.length;
  for (const [body, message] of [
    [{}, missingEmail().rawMessage],
    [{ email: "not an address" }, invalidEmail().rawMessage],
  ] as const) {
    const res = await sys.api("POST", "/api/me/password_reset/request", { body });
    t.equal(res.status, 400);
    t.equal(res.body, message);
  }
  t.equal(smtp.received.length, before);
});
