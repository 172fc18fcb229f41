import t from "tap";
import { startTestSystem, type TestSystem } from "../../test/support/harness.js";
import { CROSS_SITE_MESSAGE, isCrossSiteWrite, isJsonContentType, isSameOriginWrite, NOT_JSON_MESSAGE, reliesOnCookie } from "../cross-site.js";
import { PAGE_CSP } from "../pages/index.js";

/**
 * What keeps other sites from acting with a session cookie: where the cookie is the credential,
 * bodies must be declared JSON (415 in the family's format otherwise) and writes must come from
 * this installation's pages (Sec-Fetch-Site, else Origin); Basic and Bearer callers are not
 * affected (their JSON is read whatever its declared type, as real client libraries send it). And
 * the pages' own headers: CSP without inline script, no framing, no Referer.
 */

t.test("JSON content types", async (t) => {
  for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json", "application/vnd.api+json; q=1"]) {
    t.ok(isJsonContentType(type), type);
  }
  for (const type of [undefined, "", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", "text/json", "application/+json"]) {
    t.notOk(isJsonContentType(type), `refused: ${String(type)}`);
  }
});

t.test("which requests the session cookie authenticates", async (t) => {
  const name = "__Secure-accounts-session";
  t.ok(reliesOnCookie({ cookie: `${name}=abc` }, name), "the cookie alone");
  t.ok(reliesOnCookie({ cookie: `theme=dark; ${name}=abc` }, name), "among other cookies");
  t.notOk(reliesOnCookie({ cookie: `${name}=abc`, authorization: "Basic eDp5" }, name), "Authorization wins over the cookie");
  t.notOk(reliesOnCookie({ cookie: `x${name}=abc` }, name), "another cookie whose name ends the same");
  t.notOk(reliesOnCookie({}, name), "no credentials at all");
});

t.test("which writes are cross-site", async (t) => {
  const ours = ["https://track.example.com", "http://127.0.0.1:8080"];
  const cases: [string, Record<string, string>, boolean, string][] = [
    ["POST", { "sec-fetch-site": "same-origin", origin: "https://track.example.com" }, false, "the browser says same-origin"],
    ["POST", { "sec-fetch-site": "none" }, false, "the person did it (typed, bookmarked)"],
    ["POST", { "sec-fetch-site": "cross-site", origin: "https://evil.example" }, true, "another site"],
    ["POST", { "sec-fetch-site": "same-site", origin: "https://other.example.com" }, true, "a sibling host is another application"],
    ["POST", { "sec-fetch-site": "cross-site", origin: "https://track.example.com" }, true, "the browser's verdict wins over Origin"],
    ["PUT", { origin: "https://track.example.com" }, false, "no Sec-Fetch-Site: Origin of PUBLIC_URL"],
    ["DELETE", { origin: "HTTP://127.0.0.1:8080" }, false, "Origin of the request's own origin, in any case"],
    ["PATCH", { origin: "https://evil.example" }, true, "no Sec-Fetch-Site: another Origin"],
    ["POST", { origin: "null" }, true, "an opaque origin (sandboxed frame, data: URL)"],
    ["POST", { origin: "https://track.example.com.evil.example" }, true, "a longer host is another host"],
    ["POST", {}, false, "neither header: no browser (curl holding the cookie)"],
    ["GET", { "sec-fetch-site": "cross-site", origin: "https://evil.example" }, false, "reads are no writes"],
    ["HEAD", { "sec-fetch-site": "cross-site" }, false, "nor HEAD"],
  ];
  for (const [method, headers, crossSite, why] of cases) t.equal(isCrossSiteWrite(method, headers, ours), crossSite, why);
});

t.test("which form uploads the browser says are of this installation (a form needs the browser's word)", async (t) => {
  const ours = ["https://track.example.com"];
  const cases: [Record<string, string>, boolean, string][] = [
    [{ "sec-fetch-site": "same-origin", origin: "https://evil.example" }, true, "the browser says same-origin"],
    [{ "sec-fetch-site": "none" }, true, "the person did it"],
    [{ "sec-fetch-site": "cross-site", origin: "https://track.example.com" }, false, "the browser's verdict wins over Origin"],
    [{ "sec-fetch-site": "same-site" }, false, "a sibling host"],
    [{ origin: "https://track.example.com" }, true, "no Sec-Fetch-Site: Origin of PUBLIC_URL"],
    [{ origin: "https://evil.example" }, false, "another Origin"],
    [{ origin: "null" }, false, "an opaque origin"],
    [{}, false, "neither header: an old browser's cross-site form would look the same"],
  ];
  for (const [headers, sameOrigin, why] of cases) t.equal(isSameOriginWrite(headers, ours), sameOrigin, why);
});

const sys: TestSystem = await startTestSystem(t);
const user = await sys.signup("cookie");
const signedIn = await sys.api("POST", "/api/sessions", { body: { email: user.email, password: user.password } });
const cookie = signedIn.headers.get("set-cookie")!.split(";")[0];
const clients = `/api/v9/workspaces/${user.workspaceId}/clients`;
let n = 0;
const client = () => JSON.stringify({ name: `Client ${++n}` });

t.test("with the session cookie, a body that is not declared JSON is refused with 415, in the family's format", async (t) => {
  for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
    const res = await sys.api("POST", clients, { rawBody: client(), headers: { cookie, "content-type": type } });
    t.same([res.status, res.body], [415, NOT_JSON_MESSAGE], type);
  }
  const untyped = await fetch(`${sys.url}${clients}`, { method: "POST", headers: { cookie }, body: new Blob([client()]) });
  t.same([untyped.status, await untyped.json()], [415, NOT_JSON_MESSAGE], "no Content-Type at all");
  const hiring = await sys.api("POST", "/api/v2/openings", { rawBody: "{}", headers: { cookie, "content-type": "text/plain" } });
  t.same([hiring.status, hiring.body], [415, { error: { type: "UnsupportedMediaTypeError" } }], "hiring's format");

  const json = await sys.api("POST", clients, { rawBody: client(), headers: { cookie, "content-type": "application/json; charset=utf-8" } });
  t.equal(json.status, 200, "JSON with a charset is taken");
  const empty = await sys.api("POST", `${clients}/${json.body.id}/archive`, { auth: user.auth, rawBody: "", headers: { "content-type": "text/plain" } });
  t.not(empty.status, 415, "an empty body is no body, whatever its type");
});

t.test("Basic and token callers' JSON is read whatever its declared type (real client libraries send it so)", async (t) => {
  for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
    const res = await sys.api("POST", clients, { auth: user.auth, rawBody: client(), headers: { "content-type": type } });
    t.equal(res.status, 200, type);
  }
  const untyped = await fetch(`${sys.url}${clients}`, { method: "POST", headers: { authorization: `Basic ${Buffer.from(`${user.apiToken}:api_token`).toString("base64")}` }, body: new Blob([client()]) });
  t.equal(untyped.status, 200, "no Content-Type at all (toggl-client's reports)");
  const bad = await sys.api("POST", clients, { auth: user.auth, rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
  t.equal(bad.status, 400, "what is no JSON is still refused as such");
});

t.test("the issue's request: cookie, text/plain, Origin of another site", async (t) => {
  const res = await sys.api("POST", clients, { rawBody: client(), headers: { cookie, "content-type": "text/plain", origin: "https://evil.example" } });
  t.equal(res.status, 415);
  const list = await sys.api("GET", `${clients}?name=Client`, { auth: user.auth });
  t.notOk(list.body?.some?.((c: { name: string }) => c.name === `Client ${n}`), "nothing was made");
});

t.test("a cookie-authenticated write from another site is refused with 403; the same write from the pages is taken", async (t) => {
  const post = (headers: Record<string, string>, auth: { cookie?: string; basic?: [string, string] } = { cookie }) =>
    sys.api("POST", clients, { auth, rawBody: client(), headers: { "content-type": "application/json", ...headers } });
  const refused: Record<string, string>[] = [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site", origin: "https://evil.example" }, { "sec-fetch-site": "same-site" }, { origin: "null" }];
  for (const headers of refused) {
    const res = await post(headers);
    t.same([res.status, res.body], [403, CROSS_SITE_MESSAGE], JSON.stringify(headers));
  }
  t.equal((await post({ "sec-fetch-site": "same-origin", origin: sys.env.PUBLIC_URL! })).status, 200, "from a page of this installation");
  t.equal((await post({ origin: sys.env.PUBLIC_URL! })).status, 200, "Origin of PUBLIC_URL");
  t.equal((await post({ origin: sys.url.replace("127.0.0.1", "localhost") })).status, 403, "another name of the same machine is another origin");
  t.equal((await post({})).status, 200, "a tool that holds the cookie itself");
  t.equal((await post({ origin: "https://evil.example", "sec-fetch-site": "cross-site" }, { basic: [user.apiToken, "api_token"] })).status, 200, "Basic callers are not affected");
  const read = await sys.api("GET", clients, { auth: { cookie }, headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } });
  t.equal(read.status, 200, "reads are not writes");
  const signOut = await sys.api("DELETE", "/api/sessions", { auth: { cookie }, headers: { origin: "https://evil.example" } });
  t.equal(signOut.status, 403, "nor may another site sign the person out");
});

t.test("the pages: CSP without inline script, no framing, no Referer, no caching", async (t) => {
  for (const path of ["/", "/login", "/signup", "/invitations/abc", "/reset-password/abc", "/docs"]) {
    const res = await fetch(`${sys.url}${path}`);
    t.equal(res.status, 200, path);
    t.match(res.headers.get("content-type"), /^text\/html; charset=utf-8/);
    t.equal(res.headers.get("content-security-policy"), PAGE_CSP);
    t.equal(res.headers.get("x-frame-options"), "DENY");
    t.equal(res.headers.get("referrer-policy"), "no-referrer");
    t.equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    t.notMatch(html, /<script(?![^>]*\bsrc=)/, `${path}: every script is a file`);
    t.notMatch(html, /\sstyle=|<style/, `${path}: every style is in the stylesheet`);
  }
  t.match(PAGE_CSP, /script-src 'self';/);
  t.notMatch(PAGE_CSP, /unsafe-inline|unsafe-eval/);
  t.match(PAGE_CSP, /frame-ancestors 'none'/);
  const code = await fetch(`${sys.url}/invitations/%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
  t.notMatch(await code.text(), /<script>alert/, "nothing of the URL is written into the page");

  const profile = await fetch(`${sys.url}/profile`, { redirect: "manual" });
  t.same([profile.status, profile.headers.get("location")], [303, "/login?next=%2Fprofile"], "the profile asks to sign in first");
  const mine = await fetch(`${sys.url}/profile`, { headers: { cookie } });
  t.equal(mine.status, 200, "and is there with a session");

  const css = await fetch(`${sys.url}/assets/app.css`);
  t.match(css.headers.get("content-type"), /^text\/css/);
  const etag = css.headers.get("etag")!;
  t.equal((await fetch(`${sys.url}/assets/app.css`, { headers: { "if-none-match": etag } })).status, 304, "assets are revalidated by ETag");
  const renderer = await fetch(`${sys.url}/assets/swagger-ui/swagger-ui-bundle.js`);
  t.equal(renderer.status, 200, "the API reference's renderer is served from here");
  t.match(renderer.headers.get("content-type"), /^text\/javascript/);
});
