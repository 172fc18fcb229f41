import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { TagSchema } from "../../../gen/tracking/v1/tags_pb.js";
import { eventObject, expectRefusals, trackingWorld } from "./tracking-support.js";
import { tagManagementAdminsOnly, tagNameBlank, tagNotFound } from "../errors.js";

const clock = new ManualClock(new Date("2025-03-01T10:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const stranger = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/tags`;

async function createTag(name: string, user: TrackUser = owner) {
  const res = await sys.api("POST", base, { auth: user.auth, body: { name, workspace_id: owner.workspaceId } });
  if (res.status !== 200) throw new Error(`create tag: ${res.status} ${res.text}`);
  return res.body;
}

async function listNames(user: TrackUser = owner): Promise<string[]> {
  const res = await sys.api("GET", base, { auth: user.auth });
  if (res.status !== 200) throw new Error(`list tags: ${res.status} ${res.text}`);
  return res.body.map((tag: { name: string }) => tag.name);
}

t.test("create answers the tag with every field of the reference's models.Tag", async (t) => {
  clock.set(new Date("2025-03-01T10:00:00Z"));
  const tag = await createTag("  billed  ");
  t.same(Object.keys(tag).sort(), [
    "at", "creator_id", "deleted_at", "id", "integration_ext_id", "integration_ext_type", "integration_provider", "name", "permissions", "workspace_id",
  ]);
  t.match(tag, { id: Number, workspace_id: owner.workspaceId, name: "billed", creator_id: owner.id, deleted_at: null, integration_provider: null, permissions: null });
  t.equal(tag.at, "2025-03-01T10:00:00.000000Z");
  const listed = (await sys.api("GET", base, { auth: owner.auth })).body.find((x: { id: number }) => x.id === tag.id);
  t.same(listed, tag, "the list answers the same shape");
});

t.test("names are unique per workspace ignoring case, and bad names change nothing", async (t) => {
  await createTag("Urgent");
  const before = await listNames();
  await expectRefusals(t, sys, { method: "POST", path: base, auth: owner.auth }, [
    [{ name: "urgent" }, "a tag with the name 'urgent' already exists"],
    [{ name: "URGENT " }, "a tag with the name 'URGENT' already exists"],
    [{ name: "" }, tagNameBlank().rawMessage],
    [{ name: "   " }, tagNameBlank().rawMessage],
    [{}, tagNameBlank().rawMessage],
    [{ name: "x".repeat(101) }, "tag name can't be longer than 100 characters"],
    [{ name: 7 }, "Invalid value for name: expected string, got number"],
  ]);
  t.same(await listNames(), before);
  t.ok((await createTag("x".repeat(100))).id, "100 characters are allowed");
});

t.test("the same name may live in another workspace", async (t) => {
  const res = await sys.api("POST", `/api/v9/workspaces/${stranger.workspaceId}/tags`, { auth: stranger.auth, body: { name: "Urgent" } });
  t.equal(res.status, 200, res.text);
  t.equal(res.body.workspace_id, stranger.workspaceId);
});

t.test("the list is sorted by name ignoring case, deleted tags left out", async (t) => {
  await createTag("alpha");
  await createTag("Beta");
  const gone = await createTag("gamma");
  t.equal((await sys.api("DELETE", `${base}/${gone.id}`, { auth: owner.auth })).status, 200);
  const names = await listNames();
  t.same(names, [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  t.ok(names.includes("alpha") && names.includes("Beta"));
  t.notOk(names.includes("gamma"));
});

t.test("update renames; the name rules apply; a missing tag is 404", async (t) => {
  const tag = await createTag("Draft");
  await createTag("Final");
  clock.advance(60_000);
  const res = await sys.api("PUT", `${base}/${tag.id}`, { auth: owner.auth, body: { name: "Reviewed", workspace_id: owner.workspaceId } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: tag.id, name: "Reviewed", creator_id: owner.id, deleted_at: null });
  t.not(res.body.at, tag.at, "at moves");
  t.equal((await sys.api("PUT", `${base}/${tag.id}`, { auth: owner.auth, body: { name: "reviewed" } })).status, 200, "a tag may change its own name's case");
  await expectRefusals(t, sys, { method: "PUT", path: `${base}/${tag.id}`, auth: owner.auth }, [
    [{ name: "FINAL" }, "a tag with the name 'FINAL' already exists"],
    [{ name: " " }, tagNameBlank().rawMessage],
  ]);
  for (const id of ["999999999", "0", "-1"]) {
    const missing = await sys.api("PUT", `${base}/${id}`, { auth: owner.auth, body: { name: "Ghost" } });
    t.equal(missing.status, 404, id);
    t.equal(missing.body, tagNotFound().rawMessage);
  }
  const bad = await sys.api("PUT", `${base}/abc`, { auth: owner.auth, body: { name: "Ghost" } });
  t.equal(bad.status, 400);
  t.same(await listNames().then((n) => n.filter((x) => x === "Ghost")), []);
});

t.test("delete removes the tag; its name is free again; a second delete is 404", async (t) => {
  const tag = await createTag("Temporary");
  const res = await sys.api("DELETE", `${base}/${tag.id}`, { auth: owner.auth });
  t.equal(res.status, 200);
  t.equal(res.text, "");
  const again = await sys.api("DELETE", `${base}/${tag.id}`, { auth: owner.auth });
  t.equal(again.status, 404);
  t.equal(again.body, tagNotFound().rawMessage);
  const rename = await sys.api("PUT", `${base}/${tag.id}`, { auth: owner.auth, body: { name: "Back" } });
  t.equal(rename.status, 404, "a deleted tag cannot be renamed");
  const reborn = await createTag("temporary");
  t.not(reborn.id, tag.id);
});

t.test("plain members manage tags unless only admins may, which is 403 for them", async (t) => {
  const own = await createTag("Members Welcome", member);
  t.equal(own.creator_id, member.id);
  await world.setWorkspace({ only_admins_may_create_tags: true });
  t.teardown(() => world.setWorkspace({ only_admins_may_create_tags: false }));
  const message = tagManagementAdminsOnly().rawMessage;
  for (const [method, path, body] of [
    ["POST", base, { name: "Not Allowed" }],
    ["PUT", `${base}/${own.id}`, { name: "Renamed" }],
    ["DELETE", `${base}/${own.id}`, undefined],
  ] as const) {
    const res = await sys.api(method, path, { auth: member.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body, message);
  }
  t.ok((await listNames(member)).includes("Members Welcome"), "members still see the tags, unchanged");
  t.notOk((await listNames(member)).includes("Not Allowed"));
  const admin = await world.join("admin", { admin: true });
  t.equal((await sys.api("PUT", `${base}/${own.id}`, { auth: admin.auth, body: { name: "By Admin" } })).status, 200, "workspace admins still may");
  t.equal((await sys.api("POST", base, { auth: owner.auth, body: { name: "By Owner" } })).status, 200);
});

t.test("a user outside the workspace gets 403 and changes nothing", async (t) => {
  const tag = await createTag("Secret Tag");
  for (const [method, path, body] of [
    ["GET", base, undefined],
    ["POST", base, { name: "Intruder" }],
    ["PUT", `${base}/${tag.id}`, { name: "Hijacked" }],
    ["DELETE", `${base}/${tag.id}`, undefined],
  ] as const) {
    const res = await sys.api(method, path, { auth: stranger.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
  }
  const theirs = `/api/v9/workspaces/${stranger.workspaceId}/tags/${tag.id}`;
  t.equal((await sys.api("PUT", theirs, { auth: stranger.auth, body: { name: "Hijacked" } })).status, 404, "the id does not reach into another workspace");
  t.equal((await sys.api("DELETE", theirs, { auth: stranger.auth })).status, 404);
  t.ok((await listNames()).includes("Secret Tag"));
  t.equal((await sys.api("GET", base)).status, 403, "no credentials");
});

t.test("GET /me/tags spans the caller's workspaces; with since it answers deleted tags too", async (t) => {
  const strangerTag = await sys.api("POST", `/api/v9/workspaces/${stranger.workspaceId}/tags`, { auth: stranger.auth, body: { name: "Elsewhere" } });
  clock.advance(2_000);
  const since = Math.ceil(clock.now().getTime() / 1000);
  clock.set(new Date(since * 1000));
  const fresh = await createTag("Fresh");
  const doomed = await createTag("Doomed");
  await sys.api("DELETE", `${base}/${doomed.id}`, { auth: owner.auth });
  const mine = await sys.api("GET", "/api/v9/me/tags", { auth: member.auth });
  t.equal(mine.status, 200, mine.text);
  const ids = mine.body.map((x: { id: number }) => x.id);
  t.ok(ids.includes(fresh.id), "the shared workspace's tags");
  t.notOk(ids.includes(doomed.id), "no deleted tags without since");
  t.notOk(ids.includes(strangerTag.body.id), "not another workspace's");
  t.ok(mine.body.every((x: { deleted_at: null }) => x.deleted_at === null));
  const changed = await sys.api("GET", `/api/v9/me/tags?since=${since}`, { auth: member.auth });
  t.equal(changed.status, 200, changed.text);
  t.same(changed.body.map((x: { name: string }) => x.name).sort(), ["Doomed", "Fresh"], "only what changed since, deleted ones included");
  t.match(changed.body.find((x: { id: number }) => x.id === doomed.id), { deleted_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/ });
  const own = await sys.api("GET", "/api/v9/me/tags", { auth: stranger.auth });
  t.same(own.body.map((x: { id: number }) => x.id).sort(), [strangerTag.body.id, (await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/tags`, { auth: stranger.auth })).body.find((x: { name: string }) => x.name === "Urgent").id].sort());
  await world.accounts("workspace_users").where({ workspace_id: owner.workspaceId, user_id: member.id }).update({ active: false });
  const inactive = await sys.api("GET", "/api/v9/me/tags", { auth: member.auth });
  t.notOk(inactive.body.some((x: { id: number }) => x.id === fresh.id), "a deactivated member's list leaves the workspace out");
  await world.accounts("workspace_users").where({ workspace_id: owner.workspaceId, user_id: member.id }).update({ active: true });
  const bad = await sys.api("GET", "/api/v9/me/tags?since=yesterday", { auth: owner.auth });
  t.equal(bad.status, 400);
  t.equal((await sys.api("GET", "/api/v9/me/tags")).status, 403);
});

t.test("create, update and delete are emitted as tag events with the tag", async (t) => {
  const tag = await createTag("Evented");
  await sys.api("PUT", `${base}/${tag.id}`, { auth: owner.auth, body: { name: "Evented 2" } });
  await sys.api("DELETE", `${base}/${tag.id}`, { auth: owner.auth });
  const events = (await world.events("tag")).filter((e) => e.objectId === String(tag.id));
  t.same(events.map((e) => e.action), ["created", "updated", "deleted"]);
  t.same(events.map((e) => eventObject(e, TagSchema).name), ["Evented", "Evented 2", "Evented 2"]);
  t.ok(eventObject(events[2], TagSchema).deletedAt, "the deleted event carries deleted_at");
  t.equal(events[0].workspaceId, String(owner.workspaceId));
  const refused = await sys.api("POST", base, { auth: owner.auth, body: { name: "evented 2" } });
  t.equal(refused.status, 200, "the deleted tag's name is free");
  await sys.api("POST", base, { auth: owner.auth, body: { name: "EVENTED 2" } });
  t.equal((await world.events("tag")).filter((e) => e.action === "created" && eventObject(e, TagSchema).name.toLowerCase() === "evented 2").length, 1, "a refused create emits nothing");
});
