import t, { type Test } from "tap";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { startTestSystem, type TestSystem } from "../support/harness.js";
import { startSmtp } from "../support/smtp.js";

/**
 * The pages in a real browser (Debian's Chromium through playwright-core), against a whole system
 * with a loopback SMTP server: sign up, see and reset the API token, invite a second person, who
 * opens the mailed link, signs up from it and accepts; a password reset through the mailed link,
 * then signing in with the new password; the API reference lists every operation of
 * /openapi.json. Every page opened is checked for console errors, for requests to anywhere but
 * this installation, and with axe-core; a screenshot of each goes to SHOTS.
 */

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = "/tmp/pages-shots";
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

if (!existsSync(CHROMIUM)) {
  t.fail(`${CHROMIUM} is missing: apt-get install chromium (.ci/run installs it)`);
  process.exit(1);
}
mkdirSync(SHOTS, { recursive: true });
// A browser and a whole system: about a minute alone, more on a busy machine.
t.setTimeout(300_000);

const smtp = await startSmtp(t);
const sys: TestSystem = await startTestSystem(t, { env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
t.teardown(() => browser.close());

/** What went wrong in the browser, per context: console errors, uncaught exceptions, requests leaving the installation. */
const problems: string[] = [];
/** While set, console errors are expected (a page showing a refused answer logs the failed request). */
let expectingRefusal = false;

async function newContext(options: Parameters<typeof browser.newContext>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: "en-US", timezoneId: "Europe/Berlin", ...options });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" && !expectingRefusal) problems.push(`console error on ${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`uncaught on ${page.url()}: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith(`${sys.url}/`) && !r.url().startsWith("data:")) problems.push(`request outside the installation: ${r.url()}`);
  });
  t.teardown(() => context.close());
  return { context, page };
}

/** axe-core on the page as it is now (injected through the debugging protocol: the CSP forbids inline script); no violations. */
async function accessible(t: Test, page: Page, name: string, fullPage = true): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe.run();
    return result.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`);
  });
  t.same(violations, [], `${name}: no accessibility violation`);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });
}

/** The text of an element once it has some. */
async function textOf(page: Page, selector: string): Promise<string> {
  await page.waitForFunction((s) => (document.querySelector(s)?.textContent ?? "").trim() !== "" && !document.querySelector(s)!.textContent!.includes("…"), selector);
  return (await page.textContent(selector))!.trim();
}

/** The link to PUBLIC_URL`prefix` in the latest mail to `to` with that subject. */
async function mailedLink(to: string, subject: RegExp, prefix: string): Promise<string> {
  const pattern = new RegExp(`${sys.url.replace(/[.:/]/g, "\\$&")}${prefix}\\S+`);
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const mail = smtp.received.filter((d) => d.recipients.includes(to) && subject.test(d.mail.subject ?? "")).at(-1);
    const link = mail && pattern.exec(mail.mail.text ?? "")?.[0];
    if (link) return link;
  }
  throw new Error(`no mail to ${to} with a link to ${prefix}`);
}

const owner = { name: "Ann Owner", email: `ann.${Date.now()}@example.com`, password: "correct horse battery" };
const invitee = { email: `bob.${Date.now()}@example.com`, password: "bob's first password", newPassword: "bob's second password" };
const basic = (token: string) => ({ basic: [token, "api_token"] as [string, string] });

const { page } = await newContext({ permissions: ["clipboard-read", "clipboard-write"] });

t.test("the home page says what this is and links onwards", async (t) => {
  const res = await page.goto(`${sys.url}/`);
  t.equal(res!.status(), 200);
  t.match(res!.headers()["content-security-policy"], /script-src 'self'[;]/);
  t.match(await page.textContent("main"), /hiring export API/);
  t.match(await page.textContent("#version"), /^\d+\.\d+\.\d+$/);
  for (const href of ["/login", "/signup", "/docs", "/openapi.json", "/healthz"]) t.ok(await page.$(`main a[href="${href}"]`), `links to ${href}`);
  await accessible(t, page, "home");
});

let token = "";
t.test("signing up from the page signs in and shows the profile with the API token", async (t) => {
  await page.goto(`${sys.url}/signup`);
  t.equal(await page.inputValue("#timezone"), "Europe/Berlin", "the time zone comes from the browser");
  await accessible(t, page, "signup");
  await page.fill("#fullname", owner.name);
  await page.fill("#email", owner.email);
  await page.fill("#password", owner.password);
  await Promise.all([page.waitForURL(`${sys.url}/profile`), page.click("#signup button[type=submit]")]);
  t.equal(await textOf(page, "#me-email"), owner.email);
  t.equal(await textOf(page, "#me-name"), owner.name);
  t.equal(await textOf(page, "#me-timezone"), "Europe/Berlin");
  t.match(await textOf(page, "#me-workspace"), /\S/, "the default workspace by name");
  t.equal(await page.getAttribute("#api-token", "type"), "password", "the token is hidden until revealed");
  await page.click("#token-toggle");
  t.equal(await page.getAttribute("#api-token", "type"), "text");
  t.equal(await page.getAttribute("#token-toggle", "aria-pressed"), "true");
  token = await page.inputValue("#api-token");
  t.match(token, /^\S{16,}$/);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: basic(token) })).status, 200, "the token shown works");
  await page.click("#token-copy");
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), token, "copied");
  await accessible(t, page, "profile");

  await page.click("#token-reset");
  await page.waitForFunction((old) => (document.getElementById("api-token") as HTMLInputElement).value !== old, token);
  const fresh = await page.inputValue("#api-token");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: basic(token) })).status, 403, "the old token stops");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: basic(fresh) })).status, 200, "the new one works");
  token = fresh;
});

t.test("on a phone the profile fits the screen", async (t) => {
  const { page: phone, context } = await newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await context.addCookies(await page.context().cookies());
  await phone.goto(`${sys.url}/profile`);
  await textOf(phone, "#me-email");
  t.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scrolling");
  await accessible(t, phone, "profile-phone");
});

t.test("the invited person opens the mailed link, signs up from it and accepts", async (t) => {
  const organizations = await sys.api("GET", "/api/v9/me/organizations", { auth: basic(token) });
  const organization = organizations.body[0];
  const me = await sys.api("GET", "/api/v9/me", { auth: basic(token) });
  const invited = await sys.api("POST", `/api/v9/organizations/${organization.id}/invitations`, {
    auth: basic(token),
    body: { emails: [invitee.email], workspaces: [{ workspace_id: me.body.default_workspace_id, admin: false, role: "user" }] },
  });
  t.equal(invited.status, 200, invited.text);
  const link = await mailedLink(invitee.email, /invited you/, "/invitations/");
  t.equal(link, invited.body.data[0].invite_url, "the mail links to the invitation's page, as the API answered");

  const { page: bob } = await newContext();
  const res = await bob.goto(link);
  t.equal(res!.headers()["referrer-policy"], "no-referrer", "the page carrying the code sends no Referer");
  t.equal(res!.headers()["x-frame-options"], "DENY");
  t.equal(await textOf(bob, "#invitation-summary"), `${owner.name} invited ${invitee.email} to join the organization ${organization.name}.`);
  t.match(await bob.textContent("#invitation-workspaces"), /Workspace \S/);
  await bob.waitForSelector("#invitation-signin:not([hidden])");
  await accessible(t, bob, "invitation");

  await Promise.all([bob.waitForURL(/\/signup\?/), bob.click("#invitation-signup")]);
  t.equal(await bob.inputValue("#email"), invitee.email, "the invited address is prefilled");
  await bob.fill("#password", invitee.password);
  await Promise.all([bob.waitForURL(link), bob.click("#signup button[type=submit]")]);
  await bob.waitForSelector("#invitation-answer:not([hidden])");
  await bob.click("#accept");
  t.equal(await textOf(bob, "#invitation-outcome"), `You joined ${organization.name}.`);
  await accessible(t, bob, "invitation-accepted");
  const users = await sys.api("GET", `/api/v9/organizations/${organization.id}/users`, { auth: basic(token) });
  t.match(users.body.find((u: { email: string }) => u.email === invitee.email), { joined: true }, "a member of the organization");

  // The link again: the invitation is used up, and the page says so.
  expectingRefusal = true;
  await bob.goto(link);
  t.match(await textOf(bob, "#invitation-summary"), /no longer open/);
  expectingRefusal = false;
});

t.test("a password reset through the mailed link, then signing in with the new password", async (t) => {
  const { page: bob } = await newContext();
  await bob.goto(`${sys.url}/login`);
  await accessible(t, bob, "login");
  await bob.fill("#forgot-email", invitee.email);
  await bob.click("#forgot button[type=submit]");
  t.match(await textOf(bob, "#forgot-outcome"), /mail with a reset link is on its way/);
  const link = await mailedLink(invitee.email, /Reset your password/, "/reset-password/");

  const res = await bob.goto(link);
  t.equal(res!.headers()["referrer-policy"], "no-referrer");
  await accessible(t, bob, "reset-password");
  await bob.fill("#password", invitee.newPassword);
  await bob.fill("#repeat", invitee.newPassword);
  await bob.click("#reset button[type=submit]");
  t.match(await textOf(bob, "#reset-outcome"), /Your password is set/);
  await accessible(t, bob, "reset-password-done");

  // A used code says so.
  expectingRefusal = true;
  await bob.goto(link);
  await bob.fill("#password", "yet another password");
  await bob.fill("#repeat", "yet another password");
  await bob.click("#reset button[type=submit]");
  t.match(await textOf(bob, "#reset-outcome"), /already used or has expired/);
  expectingRefusal = false;

  await bob.goto(`${sys.url}/profile`);
  await Promise.all([bob.waitForURL(`${sys.url}/login`), bob.click("header [data-sign-out]")]);
  t.equal((await bob.context().cookies()).length, 0, "signed out: the cookie is gone");
  expectingRefusal = true;
  await bob.fill("#email", invitee.email);
  await bob.fill("#password", invitee.password);
  await bob.click("#signin button[type=submit]");
  t.equal(await textOf(bob, "#signin-outcome"), "Incorrect username and/or password", "the old password no longer works");
  expectingRefusal = false;
  await bob.fill("#password", invitee.newPassword);
  await Promise.all([bob.waitForURL(`${sys.url}/profile`), bob.click("#signin button[type=submit]")]);
  t.equal(await textOf(bob, "#me-email"), invitee.email, "signed in with the new password");
});

t.test("the API reference shows every operation of /openapi.json, grouped by API family", async (t) => {
  const document = (await sys.api("GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>>; tags: { name: string }[] };
  const expected = new Set(Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)));
  await page.goto(`${sys.url}/docs`);
  await page.waitForSelector(".opblock");
  // The screen only: the renderer draws the operations near it, the rest of the page is blank.
  await accessible(t, page, "docs", false);
  // The renderer draws the operations near the screen only (a long list is virtualized): scroll through it.
  const seen = new Set<string>();
  const families = new Set<string>();
  for (let last = -1; ; ) {
    for (const op of await page.$$eval(".opblock", (blocks) =>
      blocks.map((b) => `${b.querySelector(".opblock-summary-method")?.textContent} ${b.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`),
    )) seen.add(op);
    for (const tag of await page.$$eval(".opblock-tag", (tags) => tags.map((tag) => tag.getAttribute("data-tag") ?? ""))) families.add(tag);
    const y = await page.evaluate(() => (window.scrollBy(0, window.innerHeight * 0.8), window.scrollY));
    if (y === last) break;
    last = y;
    await page.waitForTimeout(60);
  }
  t.same([...expected].filter((op) => !seen.has(op)), [], "every operation is shown");
  t.same([...families].sort(), document.tags.map((tag) => tag.name).sort(), "under the families: hiring export, time tracking, reports, webhooks, accounts");
});

t.test("no page logged an error or sent a request elsewhere", async (t) => {
  t.same(problems, []);
});
