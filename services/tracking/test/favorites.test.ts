import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { favoriteAttributesInvalid, favoriteConstraintsUnmet, favoriteIdInvalid, favoriteNotOwned, favoriteParameterInvalid, favoriteResourcesDenied } from "../errors.js";
import { suggestedPatterns } from "../favorites/rules.js";

const clock = new ManualClock(new Date("2025-03-10T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const stranger = await sys.signup("stranger");
const ws = owner.workspaceId;
const base = "/api/v9/me/favorites";

async function post(body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await sys.api("POST", base, { auth: user.auth, body });
  if (res.status !== 200) throw new Error(`favorite: ${res.status} ${res.text}`);
  return res.body;
}

async function project(name: string) {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name, color: "#06aaf5", is_private: false } });
  if (res.status !== 200) throw new Error(`project: ${res.status} ${res.text}`);
  return res.body;
}

async function tag(name: string, workspaceId = ws, user = owner) {
  const res = await sys.api("POST", `/api/v9/workspaces/${workspaceId}/tags`, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(`tag: ${res.status} ${res.text}`);
  return res.body;
}

async function entry(user: TrackUser, body: Record<string, unknown>) {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/time_entries`, { auth: user.auth, body: { created_with: "tests", workspace_id: ws, duration: 600, ...body } });
  if (res.status !== 200) throw new Error(`entry: ${res.status} ${res.text}`);
  return res.body;
}

const site = await project("Website");
const taskRes = await sys.api("POST", `/api/v9/workspaces/${ws}/projects/${site.id}/tasks`, { auth: owner.auth, body: { name: "Design" } });
const design = taskRes.body;

t.test("a favorite answers every field of the reference's models.Favorite, with the project's meta fields", async (t) => {
  const urgent = await tag("urgent");
  const fav = await post({ workspace_id: ws, description: "  Weekly sync ", project_id: site.id, task_id: design.id, billable: true, tag_ids: [urgent.id] });
  t.same(Object.keys(fav).sort(), [
    "billable", "client_name", "created_at", "deleted_at", "description", "favorite_id", "permissions", "project_active", "project_billable",
    "project_color", "project_id", "project_name", "public", "rank", "tag_ids", "task_id", "task_name", "user_id", "was_public_at", "workspace_id",
  ]);
  t.match(fav, {
    favorite_id: Number, user_id: owner.id, workspace_id: ws, description: "Weekly sync", project_id: site.id, task_id: design.id, billable: true,
    tag_ids: [urgent.id], public: false, deleted_at: null, project_name: "Website", project_color: "#06aaf5", project_active: true, task_name: "Design", client_name: null,
  });
  t.match(fav.created_at, /^2025-03-10T12:00:\d\d\+00:00$/);
  const listed = (await sys.api("GET", base, { auth: owner.auth })).body;
  t.same(listed.find((f: { favorite_id: number }) => f.favorite_id === fav.favorite_id), fav, "the list answers the same");
});

t.test("a task alone names its project; new favorites rank after the others", async (t) => {
  const first = await post({ workspace_id: ws, task_id: design.id });
  const second = await post({ workspace_id: ws, description: "Reading" });
  t.equal(first.project_id, site.id);
  t.equal(second.rank, first.rank + 1);
});

t.test("bad favorites are refused with the reference's messages and nothing is stored", async (t) => {
  const before = (await sys.api("GET", base, { auth: owner.auth })).body.length;
  const other = await tag("theirs", stranger.workspaceId, stranger);
  const other2 = await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Other" } });
  const cases: [Record<string, unknown>, number, string][] = [
    [{ description: "x" }, 400, favoriteAttributesInvalid("workspace_id is required").rawMessage],
    [{ workspace_id: ws }, 400, favoriteConstraintsUnmet("a description or a project is required").rawMessage],
    [{ workspace_id: ws, description: "   " }, 400, favoriteConstraintsUnmet("a description or a project is required").rawMessage],
    [{ workspace_id: stranger.workspaceId, description: "x" }, 403, favoriteResourcesDenied(BigInt(owner.id), `workspace ${stranger.workspaceId}`).rawMessage],
    [{ workspace_id: ws, project_id: 987654 }, 403, favoriteResourcesDenied(BigInt(owner.id), "project 987654").rawMessage],
    [{ workspace_id: ws, task_id: 987654 }, 403, favoriteResourcesDenied(BigInt(owner.id), "task 987654").rawMessage],
    [{ workspace_id: ws, project_id: other2.body.id, task_id: design.id }, 400, favoriteConstraintsUnmet(`task ${design.id} does not belong to project ${other2.body.id}`).rawMessage],
    [{ workspace_id: ws, description: "x", tag_ids: [other.id] }, 400, favoriteConstraintsUnmet(`tags ${other.id} do not belong to workspace ${ws}`).rawMessage],
    [{ workspace_id: ws, description: "x".repeat(3001) }, 400, "favorite.description must be at most 3000 characters"],
    [{ workspace_id: "one", description: "x" }, 400, "Invalid value for workspace_id: expected integer, got string"],
  ];
  for (const [body, status, message] of cases) {
    const res = await sys.api("POST", base, { auth: owner.auth, body });
    t.equal(res.status, status, JSON.stringify(body).slice(0, 80));
    t.equal(res.body, message, JSON.stringify(body).slice(0, 80));
  }
  t.equal((await sys.api("GET", base, { auth: owner.auth })).body.length, before);
});

t.test("a private project the caller does not see cannot be a favorite", async (t) => {
  const secret = await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Secret", is_private: true } });
  const res = await sys.api("POST", base, { auth: member.auth, body: { workspace_id: ws, project_id: secret.body.id } });
  t.equal(res.status, 403);
  t.equal(res.body, favoriteResourcesDenied(BigInt(member.id), `project ${secret.body.id}`).rawMessage);
});

t.test("PUT changes the favorite the body names; only its owner may", async (t) => {
  const fav = await post({ workspace_id: ws, description: "Old", billable: true });
  clock.advance(1000);
  const res = await sys.api("PUT", base, { auth: owner.auth, body: { favorite_id: fav.favorite_id, description: "New", project_id: site.id } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { favorite_id: fav.favorite_id, description: "New", project_id: site.id, billable: true, project_name: "Website" });
  const theirs = await sys.api("PUT", base, { auth: member.auth, body: { favorite_id: fav.favorite_id, description: "Mine" } });
  t.equal(theirs.status, 403);
  t.equal(theirs.body, favoriteNotOwned(BigInt(member.id), BigInt(fav.favorite_id)).rawMessage);
  for (const body of [{ description: "x" }, { favorite_id: 99999999, description: "x" }]) {
    const bad = await sys.api("PUT", base, { auth: owner.auth, body });
    t.equal(bad.status, 400);
    t.equal(bad.body, favoriteParameterInvalid("favorite_id").rawMessage);
  }
  const blank = await sys.api("PUT", base, { auth: owner.auth, body: { favorite_id: fav.favorite_id, description: "", project_id: 0 } });
  t.equal(blank.status, 400);
  t.equal(blank.body, favoriteConstraintsUnmet("a description or a project is required").rawMessage);
});

t.test("DELETE answers 204, hides the favorite, and `since` lists it deleted", async (t) => {
  const fav = await post({ workspace_id: ws, description: "Gone soon" });
  const since = Math.floor(clock.now().getTime() / 1000);
  clock.advance(1000);
  const theirs = await sys.api("DELETE", `${base}/${fav.favorite_id}`, { auth: member.auth });
  t.equal(theirs.status, 403);
  t.equal(theirs.body, favoriteNotOwned(BigInt(member.id), BigInt(fav.favorite_id)).rawMessage);
  const res = await sys.api("DELETE", `${base}/${fav.favorite_id}`, { auth: owner.auth });
  t.equal(res.status, 204);
  t.equal(res.text, "");
  const list = (await sys.api("GET", base, { auth: owner.auth })).body;
  t.notOk(list.some((f: { favorite_id: number }) => f.favorite_id === fav.favorite_id));
  const changed = (await sys.api("GET", `${base}?since=${since}`, { auth: owner.auth })).body;
  t.match(changed.find((f: { favorite_id: number }) => f.favorite_id === fav.favorite_id), { deleted_at: /^2025-03-10T/ });
  const again = await sys.api("DELETE", `${base}/${fav.favorite_id}`, { auth: owner.auth });
  t.equal(again.status, 400);
  t.equal(again.body, favoriteIdInvalid(BigInt(fav.favorite_id)).rawMessage);
  t.equal((await sys.api("GET", `${base}?since=abc`, { auth: owner.auth })).status, 400);
});

t.test("suggestions make up to 3 favorites from the caller's most frequent recent entries, once", async (t) => {
  const start = (n: number) => new Date(Date.UTC(2025, 2, 1, 9 + n)).toISOString();
  for (let i = 0; i < 3; i++) await entry(member, { description: "Standup", start: start(i) });
  for (let i = 0; i < 2; i++) await entry(member, { project_id: site.id, start: start(3 + i) });
  await entry(member, { description: "Email", start: start(6) });
  await entry(member, { description: "Lunch", start: start(7) });
  await entry(member, { start: start(8) });
  const res = await sys.api("POST", `${base}/suggestions`, { auth: member.auth });
  t.equal(res.status, 201, res.text);
  t.same(res.body.map((f: { description: string | null; project_id: number | null }) => [f.description, f.project_id]), [
    ["Standup", null],
    [null, site.id],
    ["Lunch", null],
  ]);
  t.same(res.body.map((f: { rank: number }) => f.rank), [1, 2, 3]);
  const again = await sys.api("POST", `${base}/suggestions`, { auth: member.auth });
  t.equal(again.status, 201);
  t.same(again.body, [], "only once");
  t.equal((await sys.api("GET", base, { auth: member.auth })).body.length, 3);
});

t.test("suggestions make nothing for a caller who already has favorites or no entries", async (t) => {
  t.same((await sys.api("POST", `${base}/suggestions`, { auth: owner.auth })).body, []);
  t.same((await sys.api("POST", `${base}/suggestions`, { auth: stranger.auth })).body, []);
});

t.test("the suggestion rule groups equal entries and skips those without description and project", async (t) => {
  const at = (h: number) => new Date(Date.UTC(2025, 0, 1, h));
  const e = (description: string | null, project_id: bigint | null, h: number, tag_ids: bigint[] = []) => ({ workspace_id: 1n, description, project_id, task_id: null, billable: false, tag_ids, start: at(h) });
  const out = suggestedPatterns([e("a", null, 1, [2n, 1n]), e(" a ", null, 2, [1n, 2n]), e(null, null, 3), e("b", null, 4), e(null, 7n, 5)]);
  t.same(out.map((p) => [p.description, p.project_id, p.tag_ids]), [["a", null, [1n, 2n]], [null, 7n, []], ["b", null, []]]);
});
