import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import {
  noFilterParameter,
  rangeOutOfBounds,
  rangeParameterFormat,
  rangeParameterRequired,
  rangeReversed,
  reportDurationsReversed,
  reportFeatureNeeded,
  reportIdsInvalid,
  reportRangeTooLong,
  reportValueNotAllowed,
} from "../errors.js";

// POST /reports/api/v3/workspace/{id}/summary/time_entries: groupings, filters, the range in the
// caller's zone, rounding, amounts and who sees what (the detailed, totals and weekly reports have
// their own file; the filters are the same query).
const clock = new ManualClock(new Date("2025-03-20T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, call } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
await world.setWorkspace({ default_hourly_rate: 20, default_currency: "EUR" });
const mia = await world.join("mia");
const ned = await world.join("ned");

const v9 = `/api/v9/workspaces/${wid}`;
const acme = await call("POST", `${v9}/clients`, { name: "Acme" });
const alpha = await call("POST", `${v9}/projects`, { name: "Alpha", client_id: acme.id, billable: true, rate: 100 });
const beta = await call("POST", `${v9}/projects`, { name: "Beta" });
const secret = await call("POST", `${v9}/projects`, { name: "Secret", is_private: true });
await call("POST", `${v9}/project_users`, { project_id: alpha.id, user_id: mia.id, rate: 150 });
const design = await call("POST", `${v9}/projects/${alpha.id}/tasks`, { name: "Design" });

async function entry(body: Record<string, unknown>) {
  return call("POST", `${v9}/time_entries`, { created_with: "reports test", ...body });
}
const e1 = await entry({ start: "2025-03-10T09:00:00Z", duration: 3600, description: "Build", project_id: alpha.id, billable: true, tags: ["red"] });
const e2 = await entry({ start: "2025-03-11T09:00:00Z", duration: 1800, description: "Build", project_id: alpha.id, task_id: design.id, billable: true });
const e3 = await entry({ start: "2025-03-10T10:00:00Z", duration: 7200, description: "Review", project_id: alpha.id, billable: true, tags: ["red", "blue"], user_id: mia.id });
const e4 = await entry({ start: "2025-03-12T10:00:00Z", duration: 900, description: "Admin", user_id: mia.id });
const e5 = await entry({ start: "2025-03-12T11:00:00Z", duration: 600, description: "Build", project_id: beta.id, billable: true, user_id: ned.id });
await entry({ start: "2025-03-13T10:00:00Z", duration: 1200, description: "Hidden", project_id: secret.id, user_id: mia.id });
await entry({ start: "2025-02-01T10:00:00Z", duration: 60, description: "Earlier" });
await entry({ start: "2025-03-14T11:00:00Z", duration: -1, description: "Running" });
const red = e1.tag_ids[0];
const blue = e3.tag_ids.find((id: number) => id !== red);

const summaryPath = `/reports/api/v3/workspace/${wid}/summary/time_entries`;
const WEEK = { start_date: "2025-03-10", end_date: "2025-03-16" };

async function summary(body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await sys.api("POST", summaryPath, { auth: user.auth, body: { ...WEEK, ...body } });
  t.equal(res.status, 200, res.text);
  return res;
}
/** Each group as [id, [[sub id or title, seconds] ...]]. */
const shape = (body: { groups: { id: number | null; ids?: number[]; sub_groups: { id: number | null; title: string | null; seconds: number }[] }[] }) =>
  body.groups.map((g) => [g.ids ?? g.id, g.sub_groups.map((s) => [s.title ?? s.id, s.seconds])]);

async function refused(path: string, body: unknown, status: number, message: string, user: TrackUser = owner) {
  const res = await sys.api("POST", path, { auth: user.auth, body });
  t.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
  t.equal(res.body, message, JSON.stringify(body));
}

t.test("by default: projects by name (without project last), sub-grouped by description, with the range and grouping in headers", async (t) => {
  const res = await summary({});
  t.same(shape(res.body), [
    [alpha.id, [["Build", 5400], ["Review", 7200]]],
    [beta.id, [["Build", 600]]],
    [secret.id, [["Hidden", 1200]]],
    [null, [["Admin", 900]]],
  ]);
  t.same(res.body.groups[0].sub_groups[0], {
    id: null,
    title: "Build",
    seconds: 5400,
    ids: null,
    rates: [{ billable_seconds: 5400, currency: "EUR", hourly_rate_in_cents: 10000 }],
  });
  t.same(Object.keys(res.body), ["groups"], "the headers' values stay out of the body");
  t.equal(res.headers.get("x-grouping"), "projects");
  t.equal(res.headers.get("x-sub-grouping"), "time_entries");
  t.equal(res.headers.get("x-range-start"), "2025-03-10");
  t.equal(res.headers.get("x-range-end"), "2025-03-16");
});

t.test("groupings and sub-groupings", async (t) => {
  const users = await summary({ grouping: "users", sub_grouping: "projects" });
  t.equal(users.headers.get("x-grouping"), "users");
  t.same(shape(users.body), [
    [mia.id, [[alpha.id, 7200], [secret.id, 1200], [null, 900]]],
    [ned.id, [[beta.id, 600]]],
    [owner.id, [[alpha.id, 5400]]],
  ]);
  t.same(shape((await summary({ grouping: "clients", sub_grouping: "users" })).body), [
    [acme.id, [[mia.id, 7200], [owner.id, 5400]]],
    [null, [[mia.id, 2100], [ned.id, 600]]],
  ]);
  t.same(shape((await summary({ grouping: "projects", sub_grouping: "tasks" })).body)[0], [alpha.id, [[design.id, 1800], [null, 10800]]]);
  t.same(shape((await summary({ grouping: "tags", sub_grouping: "users" })).body), [
    [[red, blue].sort((a, b) => a - b), [[mia.id, 7200]]],
    [[red], [[owner.id, 3600]]],
    [[], [[mia.id, 2100], [ned.id, 600], [owner.id, 1800]]],
  ]);
  await refused(summaryPath, { ...WEEK, grouping: "days" }, 400, reportValueNotAllowed("grouping", ["projects", "clients", "users", "tags"]).rawMessage);
  await refused(summaryPath, { ...WEEK, grouping: "projects", sub_grouping: "clients" }, 400, reportValueNotAllowed("sub_grouping", ["time_entries", "tasks", "users"]).rawMessage);
});

t.test("include_time_entry_ids, distinguish_rates and collapse", async (t) => {
  const withIds = await summary({ include_time_entry_ids: true });
  t.same(withIds.body.groups[0].sub_groups.map((s: { ids: number[] }) => s.ids), [[e1.id, e2.id], [e3.id]]);
  const byRate = await summary({ grouping: "clients", sub_grouping: "projects", distinguish_rates: true });
  t.same(
    byRate.body.groups[0].sub_groups.map((s: { id: number; rates: unknown[] }) => [s.id, s.rates]),
    [
      [alpha.id, [{ billable_seconds: 5400, currency: "EUR", hourly_rate_in_cents: 10000 }]],
      [alpha.id, [{ billable_seconds: 7200, currency: "EUR", hourly_rate_in_cents: 15000 }]],
    ],
    "one sub-group per rate",
  );
  const collapsed = await summary({ collapse: true });
  t.same(shape(collapsed.body), [[alpha.id, [[null, 12600]]], [beta.id, [[null, 600]]], [secret.id, [[null, 1200]]], [null, [[null, 900]]]]);
  t.same(collapsed.body.groups[0].sub_groups[0].rates, [
    { billable_seconds: 5400, currency: "EUR", hourly_rate_in_cents: 10000 },
    { billable_seconds: 7200, currency: "EUR", hourly_rate_in_cents: 15000 },
  ]);
});

t.test("filters, null meaning 'without'", async (t) => {
  const total = async (body: Record<string, unknown>) => (await summary({ collapse: true, ...body })).body.groups.map((g: { id: number | null; sub_groups: { seconds: number }[] }) => [g.id, g.sub_groups[0].seconds]);
  t.same(await total({ project_ids: [beta.id, null] }), [[beta.id, 600], [null, 900]]);
  t.same(await total({ client_ids: [null] }), [[beta.id, 600], [secret.id, 1200], [null, 900]]);
  t.same(await total({ client_ids: [acme.id] }), [[alpha.id, 12600]]);
  t.same(await total({ tag_ids: [blue] }), [[alpha.id, 7200]]);
  t.same(await total({ tag_ids: [null] }), [[alpha.id, 1800], [beta.id, 600], [secret.id, 1200], [null, 900]]);
  t.same(await total({ tag_ids: [red, null] }).then((r) => r[0]), [alpha.id, 12600]);
  t.same(await total({ task_ids: [design.id] }), [[alpha.id, 1800]]);
  t.same(await total({ task_ids: [null], project_ids: [alpha.id] }), [[alpha.id, 10800]]);
  t.same(await total({ user_ids: [ned.id, owner.id] }), [[alpha.id, 5400], [beta.id, 600]]);
  t.same(await total({ time_entry_ids: [e4.id, e5.id] }), [[beta.id, 600], [null, 900]]);
  t.same(await total({ description: "bUIl" }), [[alpha.id, 5400], [beta.id, 600]], "part of the description, ignoring case");
  t.same(await total({ description: "100%" }), [], "LIKE's wildcards are literal");
  t.same(await total({ billable: false }), [[secret.id, 1200], [null, 900]]);
  t.same(await total({ min_duration_seconds: 1200, max_duration_seconds: 3600 }), [[alpha.id, 5400], [secret.id, 1200]]);
  t.same(await total({ project_ids: [999999999] }), [], "an id of nothing matches nothing");
  await refused(summaryPath, { ...WEEK, project_ids: ["a"] }, 400, reportIdsInvalid("project_ids").rawMessage);
  await refused(summaryPath, { ...WEEK, min_duration_seconds: 10, max_duration_seconds: 5 }, 400, reportDurationsReversed().rawMessage);
});

t.test("group_ids: the users of those groups, asked of the accounts service", async (t) => {
  const group = await call("POST", `/api/v9/organizations/${world.organizationId}/groups`, { name: "Reviewers", users: [mia.id, ned.id] });
  const body = { grouping: "users", collapse: true };
  t.same(shape((await summary({ ...body, group_ids: [group.group_id] })).body).map(([id]) => id), [mia.id, ned.id]);
  t.same(shape((await summary({ ...body, group_ids: [group.group_id], user_ids: [ned.id, owner.id] })).body).map(([id]) => id), [ned.id], "and the users named");
  t.same((await summary({ ...body, group_ids: [999999] })).body.groups, [], "a group of no one");
});

t.test("a member sees their own entries, and none of a private project they are not in", async (t) => {
  const res = await summary({}, mia);
  t.same(shape(res.body), [
    [alpha.id, [["Review", 7200]]],
    [null, [["Admin", 900]]],
  ]);
  t.notOk(res.text.includes(String(secret.id)));
  t.same(shape((await summary({ user_ids: [owner.id] }, mia)).body), [], "not others', even when named");
  await call("POST", `${v9}/project_users`, { project_id: secret.id, user_id: mia.id });
  t.same(shape((await summary({ project_ids: [secret.id] }, mia)).body), [[secret.id, [["Hidden", 1200]]]], "once a user of the private project");
});

t.test("amounts: rates by precedence, hidden from members where only admins see rates, and with hide_amounts", async (t) => {
  const mine = await summary({}, mia);
  t.same(mine.body.groups[0].sub_groups[0].rates, [{ billable_seconds: 7200, currency: "EUR", hourly_rate_in_cents: 15000 }], "the project user's rate");
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  const hidden = await summary({}, mia);
  t.equal(hidden.body.groups[0].sub_groups[0].rates, null);
  t.equal(hidden.body.groups[0].sub_groups[0].seconds, 7200);
  const admin = await summary({});
  t.ok(Array.isArray(admin.body.groups[0].sub_groups[0].rates), "admins still see them");
  await world.setWorkspace({ only_admins_see_billable_rates: false });
});

t.test("a member's own rate prices their entries on a project without a rate, before the workspace's default", async (t) => {
  const betaRates = async () => (await summary({ project_ids: [beta.id] })).body.groups[0].sub_groups[0].rates;
  t.same(await betaRates(), [{ billable_seconds: 600, currency: "EUR", hourly_rate_in_cents: 2000 }], "the workspace's default");
  const { organization_id: organizationId } = await call("GET", `/api/v9/workspaces/${wid}`, undefined);
  const users = await call("GET", `/api/v9/organizations/${organizationId}/users`, undefined);
  const nedUser = users.find((u: { user_id: number }) => u.user_id === ned.id);
  const set = await sys.api("PUT", `/api/v9/organizations/${organizationId}/users/${nedUser.id}`, { auth: owner.auth, body: { rate: 45 } });
  t.equal(set.status, 200, set.text);
  t.same(await betaRates(), [{ billable_seconds: 600, currency: "EUR", hourly_rate_in_cents: 4500 }], "the member's rate");
  const alphaRates = (await summary({ user_ids: [mia.id], project_ids: [alpha.id] })).body.groups[0].sub_groups[0].rates;
  t.same(alphaRates, [{ billable_seconds: 7200, currency: "EUR", hourly_rate_in_cents: 15000 }], "a project user's rate still comes first");
});

t.test("the range: days in the caller's zone, east and west of UTC", async (t) => {
  const days = { start_date: "2025-04-15", end_date: "2025-04-15" };
  await entry({ start: "2025-04-14T14:30:00Z", duration: 60, description: "tokyo-before" }); // 23:30 on the 14th in Tokyo
  await entry({ start: "2025-04-14T15:30:00Z", duration: 60, description: "tokyo-first" }); // 00:30 on the 15th in Tokyo
  await entry({ start: "2025-04-15T06:30:00Z", duration: 60, description: "la-before" }); // 23:30 on the 14th in Los Angeles
  await entry({ start: "2025-04-15T07:30:00Z", duration: 60, description: "la-first" }); // 00:30 on the 15th in Los Angeles
  await entry({ start: "2025-04-16T06:30:00Z", duration: 60, description: "la-last" }); // 23:30 on the 15th in Los Angeles
  const titles = async () => (await summary({ ...days })).body.groups.flatMap((g: { sub_groups: { title: string }[] }) => g.sub_groups.map((s) => s.title)).sort();
  const zone = (timezone: string) => call("PUT", "/api/v9/me", { timezone });
  t.same(await titles(), ["la-before", "la-first"], "UTC");
  await zone("Asia/Tokyo");
  t.same(await titles(), ["la-before", "la-first", "tokyo-first"], "east of UTC");
  await zone("America/Los_Angeles");
  t.same(await titles(), ["la-first", "la-last"], "west of UTC (daylight saving time)");
  const times = await summary({ ...days, startTime: "00:15", endTime: "00:45" });
  t.same(times.body.groups.flatMap((g: { sub_groups: { title: string }[] }) => g.sub_groups.map((s) => s.title)), ["la-first"], "startTime and endTime");
  await zone("UTC");
});

t.test("the range's refusals", async (t) => {
  await refused(summaryPath, {}, 400, noFilterParameter().rawMessage);
  await refused(summaryPath, { grouping: "users" }, 400, rangeParameterRequired("start_date").rawMessage);
  await refused(summaryPath, { start_date: "2025-02-30" }, 400, rangeParameterFormat("start_date").rawMessage);
  await refused(summaryPath, { start_date: "2025-03-10", end_date: "10/03/2025" }, 400, rangeParameterFormat("end_date").rawMessage);
  await refused(summaryPath, { start_date: "2025-03-10", end_date: "2025-03-09" }, 400, rangeReversed().rawMessage);
  await refused(summaryPath, { start_date: "2024-01-01", end_date: "2025-01-01" }, 400, reportRangeTooLong(366).rawMessage);
  await refused(summaryPath, { start_date: "1999-01-01" }, 400, rangeOutOfBounds("start_date", "2006-01-01", "2030-01-01").rawMessage);
  await refused(summaryPath, { ...WEEK, startTime: "25:00" }, 400, rangeParameterFormat("startTime").rawMessage);
  const year = await summary({ start_date: "2024-03-17", end_date: "2025-03-17" });
  t.equal(year.headers.get("x-range-end"), "2025-03-17", "a year of 366 days is allowed");
  const week = await summary({ start_date: "2025-03-10", end_date: undefined });
  t.equal(week.headers.get("x-range-end"), "2025-03-16", "end_date: six days after start_date by default");
});

t.test("rounding of each entry", async (t) => {
  const build = async (body: Record<string, unknown>) => (await summary({ project_ids: [alpha.id], ...body })).body.groups[0].sub_groups.map((s: { seconds: number }) => s.seconds);
  // Build: 3600 + 1800, Review: 7200; whole hours and half hours.
  t.same(await build({ rounding: 1, rounding_minutes: 60 }), [3600 + 3600, 7200], "up");
  t.same(await build({ rounding: -1, rounding_minutes: 60 }), [3600 + 0, 7200], "down");
  t.same(await build({ rounding: 0, rounding_minutes: 60 }), [3600 + 3600, 7200], "to the nearest, half up");
  t.same(await build({ rounding: 1, rounding_minutes: 0 }), [5400, 7200], "0 minutes: no rounding");
  await refused(summaryPath, { ...WEEK, rounding_minutes: 7 }, 400, reportValueNotAllowed("rounding_minutes", ["0", "1", "5", "6", "10", "12", "15", "30", "60", "240"]).rawMessage);
  await refused(summaryPath, { ...WEEK, rounding: 2 }, 400, reportValueNotAllowed("rounding", ["-1", "0", "1"]).rawMessage);
});

t.test("the time audit (premium): empty groups and the group filter", async (t) => {
  const audit = await summary({ grouping: "users", audit: { show_empty_groups: true, show_tracked_groups: false } });
  t.same(shape(audit.body), [], "everyone tracked");
  const someone = await world.join("zed");
  const empty = await summary({ grouping: "users", audit: { show_empty_groups: true, show_tracked_groups: false } });
  t.same(shape(empty.body), [[someone.id, []]]);
  const filtered = await summary({ grouping: "users", collapse: true, audit: { group_filter: { min_duration_seconds: 1000, max_duration_seconds: 6000 } } });
  t.same(shape(filtered.body), [[owner.id, [[null, 5400]]]]);
  const amounts = await summary({ grouping: "projects", collapse: true, audit: { group_filter: { min_amount_cents: 20000 } } });
  t.same(shape(amounts.body).map(([id]) => id), [alpha.id]);
});

t.test("premium features answer 402 on a free workspace", async (t) => {
  await world.setPlan(false);
  await refused(summaryPath, { ...WEEK, billable: true }, 402, reportFeatureNeeded().rawMessage);
  await refused(summaryPath, { ...WEEK, audit: { show_empty_groups: true } }, 402, reportFeatureNeeded().rawMessage);
  t.equal((await summary({})).status, 200, "the summary itself is free");
  await world.setPlan(true);
});

t.test("a stranger is refused with the reference's 403", async (t) => {
  const stranger = await sys.signup("stranger");
  await refused(summaryPath, WEEK, 403, "Workspace not found/accessible", stranger);
});
