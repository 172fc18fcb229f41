import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { goalFieldChoice, goalFieldRequired, goalNotAccessible, goalNotDeletable, goalNotFound, goalResourcesDenied, goalTagsInvalid, goalTargetInvalid, teamGoalsDenied } from "../errors.js";
import { goalProgress, recurrenceOf } from "../goals/rules.js";

// A Wednesday.
const clock = new ManualClock(new Date("2025-03-12T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const stranger = await sys.signup("stranger");
const ws = owner.workspaceId;
const base = `/api/v9/workspaces/${ws}/goals`;

async function goal(body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await sys.api("POST", base, { auth: user.auth, body: { name: "Focus", comparison: "more_than", recurrence: "daily", target_seconds: 3600, ...body } });
  if (res.status !== 200) throw new Error(`goal: ${res.status} ${res.text}`);
  return res.body;
}

async function entry(user: TrackUser, start: string, duration: number, body: Record<string, unknown> = {}) {
  const res = await sys.api("POST", `/api/v9/workspaces/${ws}/time_entries`, { auth: user.auth, body: { created_with: "tests", workspace_id: ws, start, duration, ...body } });
  if (res.status !== 200) throw new Error(`entry: ${res.status} ${res.text}`);
  return res.body;
}

const site = (await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Website", is_private: false } })).body;

t.test("a goal answers the reference's fields with the progress of its current recurrence", async (t) => {
  await entry(owner, "2025-03-12T08:00:00Z", 1800, { project_id: site.id });
  await entry(owner, "2025-03-12T09:00:00Z", 1200);
  const g = await goal({ project_ids: [site.id], icon: "📚" });
  t.same(Object.keys(g).sort(), [
    "active", "billable", "comparison", "creator_user_id", "creator_user_name", "current_recurrence_end_date", "current_recurrence_start_date",
    "current_recurrence_tracked_seconds", "end_date", "goal_id", "icon", "last_completed_recurrence_end_date", "last_notified_at", "name", "permissions",
    "project_ids", "recurrence", "start_date", "status", "streak", "tag_ids", "target_seconds", "task_ids", "team_goal", "user_id", "user_name", "workspace_id",
  ]);
  t.match(g, {
    workspace_id: ws, user_id: owner.id, creator_user_id: owner.id, user_name: "owner", name: "Focus", icon: "📚", comparison: "more_than", recurrence: "daily",
    target_seconds: 3600, project_ids: [site.id], start_date: "2025-03-12", end_date: null, active: true, team_goal: false, status: "in_progress",
    current_recurrence_start_date: "2025-03-12", current_recurrence_end_date: "2025-03-12", current_recurrence_tracked_seconds: 1800, streak: 0,
    last_completed_recurrence_end_date: null,
  });
  await entry(owner, "2025-03-12T10:00:00Z", 1800, { project_id: site.id });
  const now = (await sys.api("GET", `${base}/${g.goal_id}`, { auth: owner.auth })).body;
  t.match(now, { current_recurrence_tracked_seconds: 3600, status: "achieved" });
  clock.set(new Date("2025-03-13T12:00:00Z"));
  const next = (await sys.api("GET", `${base}/${g.goal_id}`, { auth: owner.auth })).body;
  t.match(next, { current_recurrence_start_date: "2025-03-13", current_recurrence_tracked_seconds: 0, status: "in_progress", streak: 1, last_completed_recurrence_end_date: "2025-03-12" });
  clock.set(new Date("2025-03-12T12:00:00Z"));
});

t.test("the list answers the caller's own active goals; archived ones with active=false; pages", async (t) => {
  const mine = await goal({ name: "Mine" });
  await goal({ name: "Theirs" }, member);
  const archived = await goal({ name: "Old" });
  t.equal((await sys.api("PUT", `${base}/${archived.goal_id}`, { auth: owner.auth, body: { active: false } })).status, 200);
  const list = (await sys.api("GET", base, { auth: owner.auth })).body;
  t.ok(list.some((g: { goal_id: number }) => g.goal_id === mine.goal_id));
  t.notOk(list.some((g: { name: string }) => g.name === "Theirs"));
  t.notOk(list.some((g: { goal_id: number }) => g.goal_id === archived.goal_id));
  const old = (await sys.api("GET", `${base}?active=false`, { auth: owner.auth })).body;
  t.same(old.map((g: { goal_id: number }) => g.goal_id), [archived.goal_id]);
  t.equal(old[0].status, "archived");
  t.equal((await sys.api("GET", `${base}?per_page=1&page=2`, { auth: owner.auth })).body.length, 1);
});

t.test("team goals: admins make goals for members and list them; members may not", async (t) => {
  const team = await goal({ name: "Team", user_id: member.id });
  t.match(team, { user_id: member.id, creator_user_id: owner.id, team_goal: true, user_name: "member" });
  const listed = (await sys.api("GET", `${base}?team_goals=true`, { auth: owner.auth })).body;
  t.ok(listed.some((g: { goal_id: number }) => g.goal_id === team.goal_id));
  t.ok((await sys.api("GET", base, { auth: member.auth })).body.some((g: { goal_id: number }) => g.goal_id === team.goal_id), "the member sees it among theirs");
  for (const [res, message] of [
    [await sys.api("GET", `${base}?team_goals=true`, { auth: member.auth }), teamGoalsDenied().rawMessage],
    [await sys.api("POST", base, { auth: member.auth, body: { name: "x", comparison: "more_than", recurrence: "daily", target_seconds: 1, user_id: owner.id } }), teamGoalsDenied().rawMessage],
    [await sys.api("POST", base, { auth: owner.auth, body: { name: "x", comparison: "more_than", recurrence: "daily", target_seconds: 1, user_id: stranger.id } }), goalResourcesDenied().rawMessage],
  ] as const) {
    t.equal(res.status, 403);
    t.equal(res.body, message);
  }
});

t.test("bad goals are refused and nothing is stored", async (t) => {
  const before = (await sys.api("GET", base, { auth: owner.auth })).body.length;
  const secret = (await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Secret", is_private: true } })).body;
  const ok = { name: "G", comparison: "more_than", recurrence: "weekly", target_seconds: 60 };
  const cases: [Record<string, unknown>, number, string, TrackUser?][] = [
    [{ ...ok, name: "  " }, 400, goalFieldRequired("name").rawMessage],
    [{ ...ok, comparison: undefined }, 400, goalFieldRequired("comparison").rawMessage],
    [{ ...ok, comparison: "equal" }, 400, goalFieldChoice("comparison", ["more_than", "less_than"]).rawMessage],
    [{ ...ok, recurrence: "hourly" }, 400, goalFieldChoice("recurrence", ["daily", "weekly", "monthly"]).rawMessage],
    [{ ...ok, target_seconds: 0 }, 400, goalTargetInvalid().rawMessage],
    [{ ...ok, target_seconds: undefined }, 400, goalFieldRequired("target_seconds").rawMessage],
    [{ ...ok, start_date: "2025-02-30" }, 400, "start_date must be a date in the form YYYY-MM-DD"],
    [{ ...ok, start_date: "2025-03-10", end_date: "2025-03-01" }, 400, "end_date must not be earlier than start_date"],
    [{ ...ok, project_ids: [987654] }, 403, goalResourcesDenied().rawMessage],
    [{ ...ok, project_ids: [secret.id] }, 403, goalResourcesDenied().rawMessage, member],
    [{ ...ok, task_ids: [987654] }, 403, goalResourcesDenied().rawMessage],
    [{ ...ok, tag_ids: [987654] }, 400, goalTagsInvalid().rawMessage],
    [{ ...ok, target_seconds: "lots" }, 400, "Invalid value for target_seconds: expected integer, got string"],
  ];
  for (const [body, status, message, user] of cases) {
    const res = await sys.api("POST", base, { auth: (user ?? owner).auth, body });
    t.equal(res.status, status, JSON.stringify(body));
    t.equal(res.body, message, JSON.stringify(body));
  }
  t.equal((await sys.api("GET", base, { auth: owner.auth })).body.length, before);
});

t.test("PUT changes the updatable fields; others' goals are not accessible; GET of one answers 404", async (t) => {
  const g = await goal({ name: "Before" }, member);
  const res = await sys.api("PUT", `${base}/${g.goal_id}`, { auth: member.auth, body: { name: "After", target_seconds: 7200, comparison: "less_than", end_date: "2025-12-31", last_notified_at: "2025-03-12T10:00:00Z" } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { name: "After", target_seconds: 7200, comparison: "less_than", end_date: "2025-12-31", status: "in_progress" });
  t.match(res.body.last_notified_at, /^2025-03-12T10:00:00/);
  const foreign = (await goal({ name: "Owner's" })).goal_id;
  const put = await sys.api("PUT", `${base}/${foreign}`, { auth: member.auth, body: { name: "x" } });
  t.equal(put.status, 400);
  t.equal(put.body, goalNotAccessible().rawMessage);
  const get = await sys.api("GET", `${base}/${foreign}`, { auth: member.auth });
  t.equal(get.status, 404);
  t.equal(get.body, goalNotFound().rawMessage);
  t.equal((await sys.api("GET", `${base}/${g.goal_id}`, { auth: owner.auth })).status, 200, "admins see every goal");
  const bad = await sys.api("PUT", `${base}/${g.goal_id}`, { auth: member.auth, body: { comparison: "sometimes" } });
  t.equal(bad.status, 400);
});

t.test("DELETE answers 204 for the creator; twice, or by someone else, is 400", async (t) => {
  const g = await goal({ name: "Temp" });
  const theirs = await sys.api("DELETE", `${base}/${g.goal_id}`, { auth: member.auth });
  t.equal(theirs.status, 400);
  t.equal(theirs.body, goalNotDeletable().rawMessage);
  const res = await sys.api("DELETE", `${base}/${g.goal_id}`, { auth: owner.auth });
  t.equal(res.status, 204);
  const again = await sys.api("DELETE", `${base}/${g.goal_id}`, { auth: owner.auth });
  t.equal(again.status, 400);
  t.equal(again.body, goalNotDeletable().rawMessage);
  t.equal((await sys.api("GET", `${base}/${g.goal_id}`, { auth: owner.auth })).status, 404);
});

t.test("recurrences: the day, the week from the user's first weekday, the calendar month", async (t) => {
  t.same(recurrenceOf("daily", "2025-03-12", 1), { start: "2025-03-12", end: "2025-03-12" });
  t.same(recurrenceOf("weekly", "2025-03-12", 1), { start: "2025-03-10", end: "2025-03-16" });
  t.same(recurrenceOf("weekly", "2025-03-12", 0), { start: "2025-03-09", end: "2025-03-15" });
  t.same(recurrenceOf("monthly", "2024-02-12", 1), { start: "2024-02-01", end: "2024-02-29" });
});

t.test("progress: statuses and streaks of both comparisons", async (t) => {
  const days = new Map([["2025-03-10", 4000], ["2025-03-11", 3600], ["2025-03-12", 100]]);
  const more = { comparison: "more_than", recurrence: "daily", target_seconds: 3600, start_date: "2025-03-01", end_date: null };
  t.match(goalProgress(more, days, "2025-03-12", 1), { status: "in_progress", streak: 2, trackedSeconds: 100, lastCompletedEnd: "2025-03-11" });
  t.match(goalProgress({ ...more, comparison: "less_than" }, days, "2025-03-12", 1), { status: "in_progress", streak: 1 });
  t.match(goalProgress({ ...more, comparison: "less_than", target_seconds: 50 }, days, "2025-03-12", 1), { status: "failed", streak: 0 });
  t.match(goalProgress({ ...more, start_date: "2025-04-01" }, days, "2025-03-12", 1), { status: "not_started", current: null, streak: 0 });
  t.match(goalProgress({ ...more, end_date: "2025-03-11" }, days, "2025-03-12", 1), { status: "ended", current: null, streak: 2, lastCompletedEnd: "2025-03-11" });
});
