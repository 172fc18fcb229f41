import t from "tap";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";
import { imageInvalidType, imageMissing } from "../errors.js";
import { MAX_IMAGE_BYTES, sniffImage } from "../images/rules.js";
import { FileBlobStore } from "../../../lib/blobs.js";
import { NO_ACCESS } from "../../../lib/errors.js";

/** Avatars and workspace logos: checked by their bytes, kept in the blob store, served with their type (form uploads: images-multipart.test.ts). */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("a tiny png body")]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from("jpeg body")]);
const GIF = Buffer.from("GIF89a and some bytes");
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([1, 0, 0, 0]), Buffer.from("WEBPVP8 data")]);

const owner = await sys.signup("imgowner");
const organizationId = await ownOrganization(sys, owner);
const member = await sys.signup("imgmember");
await addMember(db, organizationId, member);
const stranger = await sys.signup("imgstranger");
const as = (user: TrackUser) => ({ auth: user.auth });
const blobDir = sys.config.blobDir;

/** The image's bytes from its URL (public: no credentials). */
async function fetchImage(url: string) {
  const res = await fetch(url.replace(sys.config.publicUrl, sys.url));
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

t.test("the type is told by the first bytes", async (t) => {
  t.equal(sniffImage(PNG)?.contentType, "image/png");
  t.equal(sniffImage(JPEG)?.contentType, "image/jpeg");
  t.equal(sniffImage(GIF)?.contentType, "image/gif");
  t.equal(sniffImage(WEBP)?.contentType, "image/webp");
  t.equal(sniffImage(Buffer.from("<svg></svg>")), undefined);
  t.equal(sniffImage(Buffer.from("RIFF1234WAVE")), undefined);
});

t.test("the blob store keeps bytes by key under its directory and refuses paths out of it", async (t) => {
  const store = new FileBlobStore(join(blobDir, "test"));
  await store.put("a/b", new Uint8Array([1, 2, 3]));
  t.same(await store.get("a/b"), new Uint8Array([1, 2, 3]));
  await store.delete("a/b");
  t.equal(await store.get("a/b"), undefined);
  await store.delete("a/b");
  await t.rejects(store.put("../escape", new Uint8Array([1])));
  await t.rejects(store.get("/etc/passwd"));
});

t.test("an avatar: upload (base64), served with its type; gravatar; delete", async (t) => {
  const up = await sys.api("POST", "/api/v9/avatars", { ...as(owner), body: { file: PNG.toString("base64") } });
  t.equal(up.status, 200, up.text);
  t.same(Object.keys(up.body).sort(), ["avatar_urls", "fileType", "name"]);
  t.equal(up.body.fileType, "image/png");
  t.match(up.body.avatar_urls.original, /\/api\/v9\/images\/[0-9a-f]{32}\.png$/);
  const served = await fetchImage(up.body.avatar_urls.original);
  t.same([served.status, served.type], [200, "image/png"]);
  t.same(served.bytes, PNG);
  const wrongType = await fetchImage(up.body.avatar_urls.original.replace(/\.png$/, ".gif"));
  t.equal(wrongType.status, 404, "under another type it is not there");

  const again = await sys.api("POST", "/api/v9/avatars", { ...as(owner), body: { file: JPEG.toString("base64") } });
  t.equal(again.body.fileType, "image/jpeg", "the bytes tell the type");
  t.equal((await fetchImage(up.body.avatar_urls.original)).status, 404, "the replaced image is gone");
  t.equal((await fetchImage(again.body.avatar_urls.original)).type, "image/jpeg");

  const gravatar = await sys.api("POST", "/api/v9/avatars/use_gravatar", as(owner));
  t.equal(gravatar.status, 200, gravatar.text);
  t.match(gravatar.body.avatar_urls.original, /^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}$/);
  t.equal((await fetchImage(again.body.avatar_urls.original)).status, 404, "gravatar replaces the upload");

  const del = await sys.api("DELETE", "/api/v9/avatars", as(owner));
  t.same([del.status, del.text], [200, ""]);
  t.equal(Number((await db("images").where({ owner_kind: "avatar", owner_id: owner.id }).count({ n: "*" }))[0].n), 0);
});

t.test("bad uploads are refused and keep nothing", async (t) => {
  const files = () => (existsSync(join(blobDir, "images")) ? readdirSync(join(blobDir, "images")).length : 0);
  const before = files();
  const cases: [unknown, string][] = [
    [{ file: Buffer.from("<svg onload=alert(1)>").toString("base64") }, imageInvalidType().rawMessage],
    [{ file: "not base64 at all!" }, imageInvalidType().rawMessage],
    [{ file: "" }, imageMissing().rawMessage],
    [{}, imageMissing().rawMessage],
    [{ file: `data:image/png;base64,${PNG.toString("base64")}` }, imageInvalidType().rawMessage],
    [{ file: Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES)]).toString("base64") }, `file must be at most ${MAX_IMAGE_BYTES} bytes`],
  ];
  for (const [body, message] of cases) {
    const res = await sys.api("POST", "/api/v9/avatars", { ...as(owner), body });
    t.same([res.status, res.body], [400, message], JSON.stringify(body).slice(0, 60));
  }
  const atLimit = await sys.api("POST", "/api/v9/avatars", { ...as(owner), body: { file: Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES - PNG.length)]).toString("base64") } });
  t.equal(atLimit.status, 200, "512 KiB is taken");
  await sys.api("DELETE", "/api/v9/avatars", as(owner));
  t.equal(files(), before, "no blob left behind");
  const unknown = await fetch(`${sys.url}/api/v9/images/${"0".repeat(32)}.png`);
  t.equal(unknown.status, 404);
  const junk = await fetch(`${sys.url}/api/v9/images/..%2F..%2Fetc.png`);
  t.equal(junk.status, 404);
});

t.test("a workspace's logo: admins set and remove it, members read it, others are refused", async (t) => {
  const path = `/api/v9/workspaces/${owner.workspaceId}/logo`;
  const none = await sys.api("GET", path, as(member));
  t.same([none.status, none.body], [200, { logo: "" }]);
  const set = await sys.api("POST", path, { ...as(owner), body: { file: WEBP.toString("base64") } });
  t.equal(set.status, 200, set.text);
  t.match(set.body.logo, /\/api\/v9\/images\/[0-9a-f]{32}\.webp$/);
  const served = await fetchImage(set.body.logo);
  t.same([served.status, served.type, served.bytes], [200, "image/webp", WEBP]);
  const read = await sys.api("GET", path, as(member));
  t.same(read.body, set.body);
  const workspace = await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}`, as(owner));
  t.equal(workspace.body.logo_url, set.body.logo, "the workspace answers it as its logo_url");

  const byMember = await sys.api("POST", path, { ...as(member), body: { file: GIF.toString("base64") } });
  t.same([byMember.status, byMember.body], [403, NO_ACCESS]);
  const byStranger = await sys.api("GET", path, as(stranger));
  t.same([byStranger.status, byStranger.body], [403, NO_ACCESS]);
  const strangerDelete = await sys.api("DELETE", path, as(stranger));
  t.equal(strangerDelete.status, 403);
  const badLogo = await sys.api("POST", path, { ...as(owner), body: { file: Buffer.from("GIF00a").toString("base64") } });
  t.equal(badLogo.status, 400);

  const del = await sys.api("DELETE", path, as(owner));
  t.same([del.status, del.body], [200, { logo: "" }]);
  t.equal((await fetchImage(set.body.logo)).status, 404);
  t.same((await sys.api("GET", path, as(member))).body, { logo: "" });
});
