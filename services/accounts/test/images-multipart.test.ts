import t from "tap";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";
import { imageInvalidType, imageMissing } from "../errors.js";
import { MAX_IMAGE_BYTES } from "../images/rules.js";
import { NO_ACCESS } from "../../../lib/errors.js";

/** The gateway's answers (gateway/cross-site.ts, gateway/multipart.ts): a service's tests import no gateway module (test/layering.test.ts). */
const CROSS_SITE_MESSAGE = "Cross-site request refused";
const MALFORMED_FORM_MESSAGE = "Invalid multipart/form-data body";
const TOO_MANY_FILES_MESSAGE = "Only one file may be uploaded";

/**
 * Avatars and workspace logos uploaded as the real API takes them: `multipart/form-data` with the
 * image in the part `file` (routes declaring `multipart_file`), through real HTTP, beside the JSON
 * body with base64 that keeps its answers. A bad form is a 400 that keeps nothing; with the
 * session cookie a form is taken only from this installation's pages.
 */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);

/** Image bytes of each type: the magic bytes, then binary noise that holds CR, LF and dashes. */
const noise = (n: number) => Buffer.concat([randomBytes(n), Buffer.from("\r\n--\r\n--x--\r\n")]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), noise(4000)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), noise(3000)]);
const GIF = Buffer.concat([Buffer.from("GIF89a"), noise(2000)]);
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([1, 0, 0, 0]), Buffer.from("WEBPVP8 "), noise(1000)]);

const owner = await sys.signup("formowner");
const organizationId = await ownOrganization(sys, owner);
const member = await sys.signup("formmember");
await addMember(db, organizationId, member);
const basic = (user: TrackUser) => `Basic ${Buffer.from(`${user.apiToken}:api_token`).toString("base64")}`;
const signedIn = await sys.api("POST", "/api/sessions", { body: { email: owner.email, password: owner.password } });
const cookie = signedIn.headers.get("set-cookie")!.split(";")[0];
const AVATARS = "/api/v9/avatars";
const logo = `/api/v9/workspaces/${owner.workspaceId}/logo`;

/** A form with the given parts: a Buffer is a file part (with a file name), a string a text part. */
function form(parts: [string, Buffer | string][]): FormData {
  const data = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === "string") data.append(name, value);
    else data.append(name, new Blob([new Uint8Array(value)], { type: "application/octet-stream" }), `${name}.bin`);
  }
  return data;
}

/** POSTs a body (a FormData as fetch encodes it, or raw bytes) and reads the JSON answer. */
async function post(path: string, body: FormData | Buffer, headers: Record<string, string> = { authorization: basic(owner) }) {
  const res = await fetch(`${sys.url}${path}`, { method: "POST", headers, body: body instanceof FormData ? body : new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

/** A hand-made multipart body (what fetch will not build: cut short, another boundary, a text part). */
function rawForm(boundary: string, parts: { name: string; fileName?: string; data: Buffer }[], end = `--${boundary}--\r\n`): Buffer {
  const pieces = parts.flatMap(({ name, fileName, data }) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${fileName ? `; filename="${fileName}"` : ""}\r\n\r\n`),
    data,
    Buffer.from("\r\n"),
  ]);
  return Buffer.concat([...pieces, Buffer.from(end)]);
}
const withType = (boundary: string) => ({ authorization: basic(owner), "content-type": `multipart/form-data; boundary=${boundary}` });

/** The image's bytes from its URL (public: no credentials). */
async function fetchImage(url: string) {
  const res = await fetch(url.replace(sys.config.publicUrl, sys.url));
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

const blobCount = () => (existsSync(join(sys.config.blobDir, "images")) ? readdirSync(join(sys.config.blobDir, "images")).length : 0);
const avatarRows = async () => db("images").where({ owner_kind: "avatar", owner_id: owner.id }).select("image_key");

t.test("an avatar of each type uploads as a form and is served with its bytes and type", async (t) => {
  for (const [bytes, type, extension] of [
    [PNG, "image/png", "png"],
    [JPEG, "image/jpeg", "jpg"],
    [GIF, "image/gif", "gif"],
    [WEBP, "image/webp", "webp"],
  ] as const) {
    const up = await post(AVATARS, form([["file", bytes]]));
    t.equal(up.status, 200, up.text);
    t.same(Object.keys(up.body).sort(), ["avatar_urls", "fileType", "name"]);
    t.equal(up.body.fileType, type);
    t.match(up.body.avatar_urls.original, new RegExp(`/api/v9/images/[0-9a-f]{32}\\.${extension}$`));
    const served = await fetchImage(up.body.avatar_urls.original);
    t.same([served.status, served.type], [200, type], extension);
    t.ok(served.bytes.equals(bytes), `the ${extension} comes back byte for byte`);
  }
});

t.test("a workspace's logo uploads as a form by an admin; a member is refused", async (t) => {
  const set = await post(logo, form([["file", GIF]]));
  t.equal(set.status, 200, set.text);
  t.match(set.body.logo, /\/api\/v9\/images\/[0-9a-f]{32}\.gif$/);
  const served = await fetchImage(set.body.logo);
  t.same([served.status, served.type], [200, "image/gif"]);
  t.ok(served.bytes.equals(GIF));
  t.same((await sys.api("GET", logo, { auth: member.auth })).body, set.body, "members read it");
  const byMember = await post(logo, form([["file", PNG]]), { authorization: basic(member) });
  t.same([byMember.status, byMember.body], [403, NO_ACCESS]);
  t.same((await sys.api("GET", logo, { auth: member.auth })).body, set.body, "unchanged");
});

t.test("both bodies work on the same routes, with the same answers", async (t) => {
  const json = await sys.api("POST", logo, { auth: owner.auth, body: { file: WEBP.toString("base64") } });
  const multipart = await post(logo, form([["file", WEBP]]));
  t.same([json.status, multipart.status], [200, 200]);
  t.same(Object.keys(multipart.body), Object.keys(json.body));
  t.ok((await fetchImage(json.body.logo)).status === 404 && (await fetchImage(multipart.body.logo)).bytes.equals(WEBP), "the form replaced the JSON upload");
  const jsonAvatar = await sys.api("POST", AVATARS, { auth: owner.auth, body: { file: JPEG.toString("base64") } });
  t.equal(jsonAvatar.body.fileType, "image/jpeg");
  t.ok((await fetchImage(jsonAvatar.body.avatar_urls.original)).bytes.equals(JPEG), "base64 still uploads");
});

t.test("text parts beside the file are ignored; a text part named file is the file (curl -F 'file=<image')", async (t) => {
  const extra = await post(AVATARS, form([["name", "me.png"], ["file", PNG], ["note", "x".repeat(1000)]]));
  t.same([extra.status, extra.body?.fileType], [200, "image/png"], extra.text);
  const text = await post(AVATARS, rawForm("b0undary", [{ name: "file", data: GIF }]), withType("b0undary"));
  t.same([text.status, text.body?.fileType], [200, "image/gif"], text.text);
  t.ok((await fetchImage(text.body.avatar_urls.original)).bytes.equals(GIF));
});

t.test("bad forms are refused with the same 400s as base64 and keep nothing", async (t) => {
  const kept = await post(AVATARS, form([["file", PNG]]));
  const before = { blobs: blobCount(), rows: await avatarRows() };
  const tooLong = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES + 1 - PNG.length)]);
  const cases: [string, FormData | Buffer, string, Record<string, string>?][] = [
    ["one byte over 512 KiB", form([["file", tooLong]]), `file must be at most ${MAX_IMAGE_BYTES} bytes`],
    ["not an image", form([["file", Buffer.from("<svg onload=alert(1)>")]]), imageInvalidType().rawMessage],
    ["an empty file", form([["file", Buffer.alloc(0)]]), imageMissing().rawMessage],
    ["no file part", form([["name", "avatar"]]), imageMissing().rawMessage],
    ["the file under another name", form([["image", PNG]]), imageMissing().rawMessage],
    ["two file parts", form([["file", PNG], ["file", GIF]]), TOO_MANY_FILES_MESSAGE],
    ["a second file under another name", form([["file", PNG], ["other", GIF]]), TOO_MANY_FILES_MESSAGE],
    ["cut short", rawForm("cut", [{ name: "file", fileName: "a.png", data: PNG }]).subarray(0, 3000), MALFORMED_FORM_MESSAGE, withType("cut")],
    ["no closing boundary", rawForm("open", [{ name: "file", fileName: "a.png", data: PNG }], ""), MALFORMED_FORM_MESSAGE, withType("open")],
    ["another boundary than declared", rawForm("one", [{ name: "file", fileName: "a.png", data: PNG }]), MALFORMED_FORM_MESSAGE, withType("two")],
    ["no boundary declared", rawForm("one", [{ name: "file", fileName: "a.png", data: PNG }]), MALFORMED_FORM_MESSAGE, { authorization: basic(owner), "content-type": "multipart/form-data" }],
    ["not multipart at all", Buffer.from("hello"), MALFORMED_FORM_MESSAGE, withType("x")],
  ];
  for (const [why, body, message, headers] of cases) {
    const res = await post(AVATARS, body, headers);
    t.same([res.status, res.body], [400, message], why);
  }
  const atLimit = await post(AVATARS, form([["file", Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES - PNG.length)])]]));
  t.equal(atLimit.status, 200, "512 KiB is taken");
  const atLimitJson = await sys.api("POST", AVATARS, { auth: owner.auth, body: { file: tooLong.toString("base64") } });
  t.same([atLimitJson.status, atLimitJson.body], [400, `file must be at most ${MAX_IMAGE_BYTES} bytes`], "the base64 body's answer is the same");
  await sys.api("POST", AVATARS, { auth: owner.auth, body: { file: PNG.toString("base64") } });
  t.equal(kept.status, 200);
  t.equal(blobCount(), before.blobs, "no blob left behind");
  t.equal((await avatarRows()).length, 1);
});

t.test("a form over the gateway's 1 MiB body is 413, as a JSON body is", async (t) => {
  const huge = await post(AVATARS, form([["file", Buffer.concat([PNG, Buffer.alloc(1024 * 1024)])]]));
  t.same([huge.status, huge.body], [413, "Request body too large"]);
  const hugeJson = await sys.api("POST", AVATARS, { auth: owner.auth, body: { file: Buffer.alloc(800 * 1024).toString("base64") } });
  t.same([hugeJson.status, hugeJson.body], [413, "Request body too large"]);
});

t.test("with the session cookie a form is taken only when the browser says it comes from this installation", async (t) => {
  const ours = { cookie, "sec-fetch-site": "same-origin", origin: sys.url };
  const same = await post(AVATARS, form([["file", PNG]]), ours);
  t.same([same.status, same.body?.fileType], [200, "image/png"], same.text);
  const byOrigin = await post(logo, form([["file", GIF]]), { cookie, origin: sys.url });
  t.equal(byOrigin.status, 200, "Origin of this installation, from a browser without Sec-Fetch-Site");
  const before = await avatarRows();
  for (const [why, headers] of [
    ["another site", { cookie, "sec-fetch-site": "cross-site", origin: "https://evil.example" }],
    ["a sibling host", { cookie, "sec-fetch-site": "same-site", origin: "https://other.127.0.0.1" }],
    ["another Origin", { cookie, origin: "https://evil.example" }],
    ["neither header (an old browser's cross-site form looks the same)", { cookie }],
  ] as const) {
    const res = await post(AVATARS, form([["file", JPEG]]), headers);
    t.same([res.status, res.body], [403, CROSS_SITE_MESSAGE], why);
  }
  t.same(await avatarRows(), before, "nothing changed");
  const malformed = await post(AVATARS, Buffer.from("--x\r\nbroken"), { ...ours, "content-type": "multipart/form-data; boundary=x" });
  t.same([malformed.status, malformed.body], [400, MALFORMED_FORM_MESSAGE], "a broken form is 400 for cookie callers too");
  const json = await sys.api("POST", AVATARS, { rawBody: JSON.stringify({ file: PNG.toString("base64") }), headers: { ...ours, "content-type": "application/json" } });
  t.equal(json.status, 200, "JSON from this installation's page as before");
});

t.test("Basic callers send forms whatever the browser headers say", async (t) => {
  const res = await post(AVATARS, form([["file", WEBP]]), { authorization: basic(owner), "sec-fetch-site": "cross-site", origin: "https://evil.example" });
  t.same([res.status, res.body?.fileType], [200, "image/webp"], res.text);
});

t.test("routes that declare no upload still read a form as they did: JSON, else refused", async (t) => {
  const tags = `/api/v9/workspaces/${owner.workspaceId}/tags`;
  const cookieForm = await post(tags, form([["name", "x"]]), { cookie, "sec-fetch-site": "same-origin" });
  t.equal(cookieForm.status, 415, "the cookie's 415 for a body not declared JSON");
  const basicForm = await post(tags, form([["name", "x"]]));
  t.same([basicForm.status, basicForm.body], [400, "Invalid JSON input"]);
});

t.test("/openapi.json describes both uploads as forms with a binary file, and as JSON", async (t) => {
  const doc = (await sys.api("GET", "/openapi.json")).body;
  for (const operation of [doc.paths["/api/v9/avatars"].post, doc.paths["/api/v9/workspaces/{workspace_id}/logo"].post]) {
    const content = operation.requestBody.content;
    t.same(Object.keys(content), ["multipart/form-data", "application/json"]);
    t.match(content["multipart/form-data"].schema, { type: "object", properties: { file: { type: "string", format: "binary" } }, required: ["file"] });
    t.match(content["application/json"].schema.properties.file, { type: "string", format: "byte" });
  }
});
