import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { projectUsers } from "../project-users/store.js";
import { timeEntries } from "../time-entries/store.js";
import { trackingWorld } from "./tracking-support.js";

/** The workspace dashboard: each member's latest entry, the 20 latest entries, the 5 most active members. */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const other = await w.join("other");
const stranger: TrackUser = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/dashboard`;

const open = await w.project("Open");
const secret = await w.project("Secret", { is_private: true });
await w.tracking.transaction((trx) =>
  projectUsers.insert(trx, { workspace_id: BigInt(owner.workspaceId), project_id: secret.id, user_id: BigInt(owner.id), manager: true, rate: null, labour_cost: null, rate_last_updated: null, labour_cost_last_updated: null, at: clock.now() }),
);

let nextTask = 500;
async function entry(user: TrackUser, start: string, duration: number, values: Record<string, unknown> = {}) {
  const at = new Date(start);
  return w.tracking.transaction((trx) =>
    timeEntries.insert(trx, {
      workspace_id: owner.workspaceId, user_id: user.id, project_id: null, task_id: null, description: null, billable: false,
      start: at, stop: duration >= 0 ? new Date(at.getTime() + duration * 1000) : null, duration, running_user_id: duration < 0 ? user.id : null,
      tag_ids: [], shared_with_user_ids: [], created_with: "test", created_at: at, at, server_deleted_at: null, ...values,
    } as never),
  );
}

await entry(owner, "2026-03-10T09:00:00Z", 3600, { project_id: open.id, description: "planning", task_id: nextTask++ });
const ownerLatest = await entry(owner, "2026-03-14T09:00:00Z", 7200, { project_id: secret.id, task_id: nextTask++, description: "secret work" });
await entry(member, "2026-03-13T09:00:00Z", 1800);
const memberRunning = await entry(member, "2026-03-15T11:00:00Z", -Math.floor(Date.parse("2026-03-15T11:00:00Z") / 1000), { project_id: open.id });
await entry(other, "2026-03-01T09:00:00Z", 36000);
await entry(other, "2026-03-12T09:00:00Z", 600, { server_deleted_at: clock.now() });
await entry(stranger, "2026-03-14T10:00:00Z", 99999, { workspace_id: stranger.workspaceId });

t.test("all_activity: each member's latest entry, newest first, in the reference's shape", async (t) => {
  const res = await sys.api("GET", `${base}/all_activity`, { auth: owner.auth });
  t.equal(res.status, 200);
  t.same(res.body, [
    { user_id: member.id, project_id: open.id, duration: memberRunning.duration },
    { user_id: owner.id, project_id: secret.id, duration: 7200, description: "secret work", stop: "2026-03-14T11:00:00Z", tid: ownerLatest.task_id },
    { user_id: other.id, project_id: 0, duration: 36000, stop: "2026-03-01T19:00:00Z" },
  ]);
});

t.test("a member who does not see a private project gets it as no project, without its task", async (t) => {
  const res = await sys.api("GET", `${base}/all_activity`, { auth: member.auth });
  t.equal(res.status, 200);
  t.same(res.body.find((a: { user_id: number }) => a.user_id === owner.id), { user_id: owner.id, project_id: 0, duration: 7200, description: "secret work", stop: "2026-03-14T11:00:00Z" });
});

t.test("since narrows to entries started since then", async (t) => {
  const since = Date.parse("2026-03-12T00:00:00Z") / 1000;
  const res = await sys.api("GET", `${base}/all_activity?since=${since}`, { auth: owner.auth });
  t.same(res.body.map((a: { user_id: number }) => a.user_id), [member.id, owner.id]);
  const top = await sys.api("GET", `${base}/top_activity?since=${since}`, { auth: owner.auth });
  t.same(top.body.map((a: { duration: number }) => a.duration), [memberRunning.duration, 7200, 1800]);
});

t.test("top_activity: the latest 20 entries of the workspace, newest first", async (t) => {
  const res = await sys.api("GET", `${base}/top_activity`, { auth: member.auth });
  t.equal(res.status, 200);
  t.same(res.body.map((a: { user_id: number }) => a.user_id), [member.id, owner.id, member.id, owner.id, other.id]);
  for (let i = 0; i < 25; i++) await entry(other, `2026-02-0${1 + (i % 9)}T0${i % 10}:00:00Z`, 60);
  const capped = await sys.api("GET", `${base}/top_activity`, { auth: member.auth });
  t.equal(capped.body.length, 20);
});

t.test("most_active: the top 5 by time tracked in stopped entries of the last 7 days", async (t) => {
  const res = await sys.api("GET", `${base}/most_active`, { auth: member.auth });
  t.equal(res.status, 200);
  t.same(res.body, [
    { user_id: owner.id, duration: 10800 },
    { user_id: member.id, duration: 1800 },
  ], "other's entry of March 1 is older than 7 days; running and deleted entries count nothing");
  const since = Date.parse("2026-03-01T00:00:00Z") / 1000;
  const wider = await sys.api("GET", `${base}/most_active?since=${since}`, { auth: member.auth });
  t.same(wider.body, [
    { user_id: other.id, duration: 36000 },
    { user_id: owner.id, duration: 10800 },
    { user_id: member.id, duration: 1800 },
  ]);
});

t.test("strangers are refused; bad parameters are 400", async (t) => {
  for (const path of ["all_activity", "top_activity", "most_active"]) {
    t.equal((await sys.api("GET", `${base}/${path}`, { auth: stranger.auth })).status, 403, path);
    t.equal((await sys.api("GET", `${base}/${path}?since=x`, { auth: owner.auth })).status, 400, path);
  }
});
