import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { projectUsers } from "../project-users/store.js";
import { timeEntries } from "../time-entries/store.js";
import { trackingWorld } from "./tracking-support.js";
import { dateInvalid, invalidProject, periodsRangeInvalid, pinLimitFree, pinLimitPaid, projectNotAccessible } from "../errors.js";

/**
 * The projects' side operations: billable amounts and templates (lists of projects), recurring
 * periods, pins per user, statistics of the entries, and the caller's projects page by page.
 */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const stranger: TrackUser = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/projects`;

const alpha = await w.project("Alpha");
const beta = await w.project("Beta", { template: true });
const secret = await w.project("Secret", { is_private: true, template: true });
const gone = await w.project("Gone", { server_deleted_at: clock.now() });
const weekly = await w.project("Weekly", { recurring: true, recurring_parameters: { period: "weekly", custom_period: null, project_start_date: "2026-03-02" } });
const foreign = await w.project("Foreign", { workspace_id: BigInt(stranger.workspaceId), creator_id: BigInt(stranger.id) });

async function entry(projectId: bigint, start: string, duration: number, values: Record<string, unknown> = {}) {
  const at = new Date(start);
  await w.tracking.transaction((trx) =>
    timeEntries.insert(trx, {
      workspace_id: owner.workspaceId, user_id: owner.id, project_id: projectId, task_id: null, description: null, billable: false,
      start: at, stop: duration >= 0 ? new Date(at.getTime() + duration * 1000) : null, duration, running_user_id: null, tag_ids: [],
      shared_with_user_ids: [], created_with: "test", created_at: at, at, server_deleted_at: null, ...values,
    } as never),
  );
}

t.test("billable-amounts answers the live projects among the ids that the caller sees", async (t) => {
  const res = await sys.api("POST", `${base}/billable-amounts`, { auth: member.auth, body: { project_ids: [alpha.id, secret.id, gone.id, foreign.id, alpha.id, 999999n].map(Number) } });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((p: { id: number }) => p.id), [Number(alpha.id)]);
  t.equal(res.body[0].name, "Alpha");
  const admin = await sys.api("POST", `${base}/billable-amounts`, { auth: owner.auth, body: { project_ids: [secret.id, alpha.id].map(Number) } });
  t.same(admin.body.map((p: { name: string }) => p.name), ["Alpha", "Secret"]);
  const none = await sys.api("POST", `${base}/billable-amounts`, { auth: owner.auth, body: {} });
  t.equal(none.status, 200);
  t.same(none.body, []);
  const bad = await sys.api("POST", `${base}/billable-amounts`, { auth: owner.auth, body: { project_ids: "x" } });
  t.equal(bad.status, 400);
});

t.test("templates lists the live template projects the caller sees", async (t) => {
  const res = await sys.api("GET", `${base}/templates`, { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((p: { name: string }) => p.name), ["Beta", "Secret"]);
  const plain = await sys.api("GET", `${base}/templates`, { auth: member.auth });
  t.same(plain.body.map((p: { name: string }) => p.name), ["Beta"]);
  const other = await sys.api("GET", `${base}/templates`, { auth: stranger.auth });
  t.equal(other.status, 403);
});

t.test("periods: the recurring project's periods that meet the range, the current one by default", async (t) => {
  const current = await sys.api("GET", `${base}/${weekly.id}/periods`, { auth: owner.auth });
  t.equal(current.status, 200, current.text);
  t.same(current.body, [{ start_date: "2026-03-09", end_date: "2026-03-15" }]);
  const range = await sys.api("GET", `${base}/${weekly.id}/periods?start_date=2026-02-01&end_date=2026-03-10`, { auth: owner.auth });
  t.same(range.body, [
    { start_date: "2026-03-02", end_date: "2026-03-08" },
    { start_date: "2026-03-09", end_date: "2026-03-15" },
  ]);
  const later = await sys.api("GET", `${base}/${weekly.id}/periods?start_date=2026-03-20`, { auth: owner.auth });
  t.same(later.body, [{ start_date: "2026-03-16", end_date: "2026-03-22" }]);
  const plain = await sys.api("GET", `${base}/${alpha.id}/periods`, { auth: owner.auth });
  t.equal(plain.status, 200);
  t.same(plain.body, [], "a project that does not recur has no periods");
});

t.test("periods refuses bad dates, reversed ranges and projects the caller cannot see", async (t) => {
  const bad = await sys.api("GET", `${base}/${weekly.id}/periods?start_date=2026-13-01`, { auth: owner.auth });
  t.equal(bad.status, 400);
  t.equal(bad.body, dateInvalid("start_date").rawMessage);
  const reversed = await sys.api("GET", `${base}/${weekly.id}/periods?start_date=2026-03-10&end_date=2026-03-01`, { auth: owner.auth });
  t.equal(reversed.status, 400);
  t.equal(reversed.body, periodsRangeInvalid().rawMessage);
  for (const id of [secret.id, gone.id, foreign.id]) {
    const res = await sys.api("GET", `${base}/${id}/periods`, { auth: member.auth });
    t.equal(res.status, 400);
    t.equal(res.body, invalidProject().rawMessage);
  }
});

t.test("pin: one pin in a free workspace, a hundred in a paid one; pinned shows for the pinner only", async (t) => {
  const pin = (id: bigint, pin: boolean | undefined, user: TrackUser = member) => sys.api("POST", `${base}/${id}/pin`, { auth: user.auth, body: pin === undefined ? {} : { pin } });
  const first = await pin(alpha.id, true);
  t.equal(first.status, 200, first.text);
  t.equal(first.text, "");
  t.equal((await pin(alpha.id, true)).status, 200, "pinning again changes nothing");
  const second = await pin(beta.id, undefined);
  t.equal(second.status, 403);
  t.equal(second.body, pinLimitFree().rawMessage);

  const got = await sys.api("GET", `${base}/${alpha.id}`, { auth: member.auth });
  t.equal(got.body.pinned, true);
  const others = await sys.api("GET", `${base}/${alpha.id}`, { auth: owner.auth });
  t.equal(others.body.pinned, false, "pins are the user's own");
  const list = await sys.api("GET", base, { auth: member.auth });
  t.same(list.body.filter((p: { pinned: boolean }) => p.pinned).map((p: { id: number }) => p.id), [Number(alpha.id)]);

  const weeklyPin = await w.tracking("project_pins").insert({ workspace_id: owner.workspaceId, project_id: weekly.id, user_id: member.id, created_at: clock.now() });
  t.ok(weeklyPin);
  const sorted = await sys.api("GET", `${base}?sort_pinned=true`, { auth: member.auth });
  t.same(sorted.body.map((p: { name: string }) => p.name).slice(0, 3), ["Alpha", "Weekly", "Beta"], "pinned ones first, by name");
  const unsorted = await sys.api("GET", `${base}?sort_pinned=true&sort_order=DESC`, { auth: member.auth });
  t.same(unsorted.body.map((p: { name: string }) => p.name).slice(0, 2), ["Weekly", "Alpha"]);
  const plainOrder = await sys.api("GET", base, { auth: member.auth });
  t.equal(plainOrder.body[0].name, "Alpha");
  t.equal(plainOrder.body[1].name, "Beta", "without sort_pinned the name order alone");
  await w.tracking("project_pins").where({ project_id: weekly.id }).delete();

  t.equal((await pin(alpha.id, false)).status, 200);
  t.equal((await sys.api("GET", `${base}/${alpha.id}`, { auth: member.auth })).body.pinned, false);
  t.equal((await pin(alpha.id, false)).status, 200, "unpinning what is not pinned is no error");

  await w.setPlan(true);
  t.teardown(() => w.setPlan(false));
  t.equal((await pin(alpha.id, true)).status, 200);
  t.equal((await pin(beta.id, true)).status, 200);
  const many = [];
  for (let i = 0; i < 98; i++) many.push({ workspace_id: owner.workspaceId, project_id: 100000 + i, user_id: member.id, created_at: clock.now() });
  await w.tracking("project_pins").insert(many);
  const over = await pin(weekly.id, true);
  t.equal(over.status, 403);
  t.equal(over.body, pinLimitPaid(100).rawMessage);
  await w.tracking("project_pins").where({ user_id: member.id }).delete();
});

t.test("pin refuses projects the caller cannot see with 404", async (t) => {
  for (const id of [secret.id, gone.id, foreign.id, 999999n]) {
    const res = await sys.api("POST", `${base}/${id}/pin`, { auth: member.auth, body: { pin: true } });
    t.equal(res.status, 404, String(id));
    t.equal(res.body, projectNotAccessible().rawMessage);
  }
  const bad = await sys.api("POST", `${base}/${alpha.id}/pin`, { auth: member.auth, body: { pin: "yes" } });
  t.equal(bad.status, 400);
});

t.test("statistics: the first and last start of the project's stopped, live entries", async (t) => {
  const p = await w.project("Stats");
  const empty = await sys.api("GET", `${base}/${p.id}/statistics`, { auth: owner.auth });
  t.equal(empty.status, 200, empty.text);
  t.same(empty.body, { earliest_time_entry: null, latest_time_entry: null });
  await entry(p.id, "2026-03-02T09:00:00Z", 600);
  await entry(p.id, "2026-03-10T08:30:00Z", 60);
  await entry(p.id, "2026-03-12T08:00:00Z", -1773302400, { running_user_id: owner.id });
  await entry(p.id, "2026-01-01T08:00:00Z", 60, { server_deleted_at: clock.now() });
  await entry(alpha.id, "2025-01-01T08:00:00Z", 60);
  const res = await sys.api("GET", `${base}/${p.id}/statistics`, { auth: member.auth });
  t.same(res.body, { earliest_time_entry: "2026-03-02T09:00:00Z", latest_time_entry: "2026-03-10T08:30:00Z" });
  for (const id of [secret.id, gone.id, foreign.id]) {
    const hidden = await sys.api("GET", `${base}/${id}/statistics`, { auth: member.auth });
    t.equal(hidden.status, 400);
    t.equal(hidden.body, invalidProject().rawMessage);
  }
});

t.test("me/projects/paginated: the caller's projects in id order from start_project_id, per_page at a time", async (t) => {
  const all = await sys.api("GET", "/api/v9/me/projects/paginated", { auth: member.auth });
  t.equal(all.status, 200);
  const ids: number[] = all.body.map((p: { id: number }) => p.id);
  t.same(ids, [...ids].sort((a, b) => a - b));
  t.ok(ids.includes(Number(alpha.id)) && ids.includes(Number(weekly.id)));
  t.notOk(ids.includes(Number(secret.id)) || ids.includes(Number(gone.id)) || ids.includes(Number(foreign.id)));
  const page = await sys.api("GET", `/api/v9/me/projects/paginated?per_page=2&start_project_id=${ids[1]}`, { auth: member.auth });
  t.same(page.body.map((p: { id: number }) => p.id), ids.slice(1, 3));
  const since = await sys.api("GET", `/api/v9/me/projects/paginated?since=${Math.floor(clock.now().getTime() / 1000) - 3600}`, { auth: owner.auth });
  t.ok(since.body.some((p: { id: number; server_deleted_at: string | null }) => p.id === Number(gone.id) && p.server_deleted_at !== null), "since lists deleted ones");
  const bad = await sys.api("GET", "/api/v9/me/projects/paginated?per_page=x", { auth: member.auth });
  t.equal(bad.status, 400);
  const anonymous = await sys.api("GET", "/api/v9/me/projects/paginated");
  t.equal(anonymous.status, 403);
});

t.test("a project user of a private project sees it in every list", async (t) => {
  await w.tracking.transaction((trx) =>
    projectUsers.insert(trx, { workspace_id: BigInt(owner.workspaceId), project_id: secret.id, user_id: BigInt(member.id), manager: false, rate: null, labour_cost: null, rate_last_updated: null, labour_cost_last_updated: null, at: clock.now() }),
  );
  const templates = await sys.api("GET", `${base}/templates`, { auth: member.auth });
  t.same(templates.body.map((p: { name: string }) => p.name), ["Beta", "Secret"]);
  const stats = await sys.api("GET", `${base}/${secret.id}/statistics`, { auth: member.auth });
  t.equal(stats.status, 200);
});
