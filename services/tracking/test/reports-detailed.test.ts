import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { reportNegative, reportParameterUnsupported, reportValueNotAllowed } from "../errors.js";

// The detailed report (search/time_entries) with its pages, its totals, and the weekly report.
const clock = new ManualClock(new Date("2025-03-20T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, call } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
await world.setWorkspace({ default_hourly_rate: 20, default_currency: "USD" });
const mia = await world.join("mia");

const v9 = `/api/v9/workspaces/${wid}`;
const acme = await call("POST", `${v9}/clients`, { name: "Acme" });
const alpha = await call("POST", `${v9}/projects`, { name: "Alpha", client_id: acme.id, billable: true, rate: 100, color: "#c9806b", is_private: false });
const entry = (body: Record<string, unknown>) => call("POST", `${v9}/time_entries`, { created_with: "reports test", ...body });
const d1 = await entry({ start: "2025-03-10T09:00:00Z", duration: 3600, description: "Build", project_id: alpha.id, billable: true, tags: ["red"] });
const d2 = await entry({ start: "2025-03-10T11:00:00Z", duration: 1800, description: "Build", project_id: alpha.id, billable: true, tags: ["red"] });
const d3 = await entry({ start: "2025-03-11T09:00:00Z", duration: 600, description: "Build", project_id: alpha.id, billable: true, tags: ["red"] });
const d4 = await entry({ start: "2025-03-12T09:00:00Z", duration: 7200, description: "Zeta" });
const d5 = await entry({ start: "2025-03-13T23:30:00Z", duration: 900, description: "Late" });
const d6 = await entry({ start: "2025-03-11T10:00:00Z", duration: 1200, description: "Mia work", project_id: alpha.id, billable: true, user_id: mia.id });
const red = d1.tag_ids[0];

const base = `/reports/api/v3/workspace/${wid}`;
const WEEK = { start_date: "2025-03-10", end_date: "2025-03-16" };

async function post(path: string, body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await sys.api("POST", `${base}/${path}`, { auth: user.auth, body: { ...WEEK, ...body } });
  t.equal(res.status, 200, res.text);
  return res;
}
const detailed = (body: Record<string, unknown> = {}, user?: TrackUser) => post("search/time_entries", body, user);
const ids = (rows: { time_entries: { id: number }[] }[]) => rows.map((r) => r.time_entries.map((e) => e.id));

async function refused(path: string, body: Record<string, unknown>, message: string) {
  const res = await sys.api("POST", `${base}/${path}`, { auth: owner.auth, body: { ...WEEK, ...body } });
  t.equal(res.status, 400, res.text);
  t.equal(res.body, message);
}

t.test("a row per entry, by start, with the reference's fields", async (t) => {
  const res = await detailed();
  t.same(ids(res.body), [[d1.id], [d2.id], [d3.id], [d6.id], [d4.id], [d5.id]]);
  t.same(res.body[0], {
    user_id: owner.id,
    username: "owner",
    project_id: alpha.id,
    task_id: null,
    billable: true,
    description: "Build",
    tag_ids: [red],
    billable_amount_in_cents: 10000,
    hourly_rate_in_cents: 10000,
    currency: "USD",
    time_entries: [{ id: d1.id, seconds: 3600, start: "2025-03-10T09:00:00+00:00", stop: "2025-03-10T10:00:00+00:00", at: res.body[0].time_entries[0].at, at_tz: res.body[0].time_entries[0].at_tz }],
    row_number: 1,
  });
  t.match(res.body[0].time_entries[0].at, /^2025-03-20T12:00:\d\d\+00:00$/);
  t.same(res.body[4].billable_amount_in_cents, 0, "not billable: no amount");
  t.equal(res.headers.get("x-next-id"), null, "one page: no next page");
  t.equal(res.headers.get("x-next-row-number"), null);
  t.equal(res.headers.get("x-range-start"), "2025-03-10");
});

t.test("enrich_response adds names and colors", async (t) => {
  const res = await detailed({ enrich_response: true });
  t.match(res.body[0], { email: owner.email, project_name: "Alpha", project_color: "#c9806b", project_hex: "#c9806b", client_name: "Acme", task_name: null, tag_names: ["red"] });
  t.match(res.body[4], { project_name: null, client_name: null, tag_names: [] });
  t.notOk("project_name" in (await detailed()).body[0], "left out otherwise");
});

t.test("times in the caller's zone", async (t) => {
  await call("PUT", "/api/v9/me", { timezone: "Asia/Tokyo" });
  const res = await detailed({ time_entry_ids: [d1.id] });
  t.same([res.body[0].time_entries[0].start, res.body[0].time_entries[0].stop], ["2025-03-10T18:00:00+09:00", "2025-03-10T19:00:00+09:00"]);
  t.match(res.body[0].time_entries[0].at_tz, /\+09:00$/);
  await call("PUT", "/api/v9/me", { timezone: "UTC" });
});

t.test("pages: X-Next-ID, X-Next-Row-Number and X-Next-Timestamp while rows remain", async (t) => {
  const first = await detailed({ page_size: 2 });
  t.same(ids(first.body), [[d1.id], [d2.id]]);
  t.equal(first.headers.get("x-next-id"), String(d3.id));
  t.equal(first.headers.get("x-next-row-number"), "3");
  t.equal(first.headers.get("x-next-timestamp"), String(Date.parse("2025-03-11T09:00:00Z") / 1000));
  const next = { first_id: Number(first.headers.get("x-next-id")), first_row_number: 3, first_timestamp: Number(first.headers.get("x-next-timestamp")) };
  const second = await detailed({ page_size: 2, ...next });
  t.same(ids(second.body), [[d3.id], [d6.id]]);
  t.same(second.body.map((r: { row_number: number }) => r.row_number), [3, 4]);
  const byRowNumber = await detailed({ page_size: 2, first_row_number: 3 });
  t.same(ids(byRowNumber.body), [[d3.id], [d6.id]], "the row number alone finds the page too");
  const last = await detailed({ page_size: 2, first_row_number: 5, first_id: Number(second.headers.get("x-next-id")), first_timestamp: Number(second.headers.get("x-next-timestamp")) });
  t.same(ids(last.body), [[d4.id], [d5.id]]);
  t.equal(last.headers.get("x-next-id"), null, "the last page");
  const desc = await detailed({ page_size: 4, order_dir: "desc" });
  t.same(ids(desc.body), [[d5.id], [d4.id], [d6.id], [d3.id]]);
  const descNext = await detailed({ page_size: 4, order_dir: "DESC", first_id: Number(desc.headers.get("x-next-id")), first_timestamp: Number(desc.headers.get("x-next-timestamp")), first_row_number: 5 });
  t.same(ids(descNext.body), [[d2.id], [d1.id]]);
  await refused("search/time_entries", { page_size: -1 }, reportNegative("page_size").rawMessage);
});

t.test("orders", async (t) => {
  t.same(ids((await detailed({ order_by: "duration", order_dir: "DESC" })).body), [[d4.id], [d1.id], [d2.id], [d6.id], [d5.id], [d3.id]]);
  t.same(ids((await detailed({ order_by: "description" })).body), [[d1.id], [d2.id], [d3.id], [d5.id], [d6.id], [d4.id]]);
  t.same(ids((await detailed({ order_by: "user" })).body).slice(0, 1), [[d6.id]], "mia before owner");
  t.same(ids((await detailed({ order_by: "last_update", order_dir: "DESC" })).body)[0], [d6.id], "ties by id");
  await refused("search/time_entries", { order_by: "project" }, reportValueNotAllowed("order_by", ["date", "user", "duration", "description", "last_update"]).rawMessage);
  await refused("search/time_entries", { order_dir: "up" }, reportValueNotAllowed("order_dir", ["ASC", "DESC"]).rawMessage);
});

t.test("grouped: one row per alike entries, its amount over all of them", async (t) => {
  const res = await detailed({ grouped: true });
  t.same(ids(res.body), [[d1.id, d2.id, d3.id], [d6.id], [d4.id], [d5.id]]);
  t.equal(res.body[0].billable_amount_in_cents, 16667, "6000 seconds at 100.00 an hour");
  const paged = await detailed({ grouped: true, page_size: 1, first_row_number: 2 });
  t.same(ids(paged.body), [[d6.id]]);
  t.equal(paged.headers.get("x-next-row-number"), "3");
  t.equal(paged.headers.get("x-next-id"), String(d4.id));
});

t.test("amounts hidden: hide_amounts, and members where only admins see rates", async (t) => {
  const hidden = await detailed({ hide_amounts: true });
  t.match(hidden.body[0], { billable_amount_in_cents: null, hourly_rate_in_cents: null, currency: "USD" });
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  const member = await detailed({}, mia);
  t.same(ids(member.body), [[d6.id]], "a member sees their own entries");
  t.match(member.body[0], { billable_amount_in_cents: null, hourly_rate_in_cents: null });
  const totals = await post("search/time_entries/totals", {}, mia);
  t.match(totals.body, { seconds: 1200, billable_amount_in_cents: null, rates: null, labour_cost_in_cents: null });
  await world.setWorkspace({ only_admins_see_billable_rates: false });
});

t.test("totals: seconds, tracked days, amounts by rate, labour costs", async (t) => {
  const pu = (await call("GET", `${v9}/project_users?project_ids=${alpha.id}`, undefined)).find((p: { user_id: number }) => p.user_id === owner.id);
  await call("PUT", `${v9}/project_users/${pu.id}`, { labour_cost: 30 });
  const res = await post("search/time_entries/totals", {});
  t.same(res.body, {
    seconds: 3600 + 1800 + 600 + 7200 + 900 + 1200,
    tracked_days: 4,
    billable_amount_in_cents: 16667 + 3333,
    labour_cost_in_cents: 5000,
    rates: [{ billable_seconds: 7200, currency: "USD", hourly_rate_in_cents: 10000 }],
    resolution: "day",
    graph: null,
  });
  t.equal(res.headers.get("x-range-end"), "2025-03-16");
  const graph = (await post("search/time_entries/totals", { with_graph: true })).body.graph;
  t.equal(graph.length, 7);
  t.same(graph[0], { seconds: 5400, billable_amount_in_cents: 15000, labour_cost_in_cents: 4500, by_rate: { "10000": 5400 } });
  t.same(graph.map((p: { seconds: number }) => p.seconds), [5400, 1800, 7200, 900, 0, 0, 0]);
  const weeks = await post("search/time_entries/totals", { with_graph: true, granularity: "week", resolution: "day" });
  t.equal(weeks.body.resolution, "week");
  t.same(weeks.body.graph.map((p: { seconds: number }) => p.seconds), [15300], "one week from Monday");
  const month = await post("search/time_entries/totals", { start_date: "2025-01-01", end_date: "2025-06-30" });
  t.equal(month.body.resolution, "month", "from the range's length");
  await refused("search/time_entries/totals", { granularity: "hour" }, reportValueNotAllowed("granularity", ["day", "week", "month"]).rawMessage);
  await call("PUT", `${v9}/project_users/${pu.id}`, { labour_cost: 0 });
});

t.test("totals by week and month: an entry counts in the bucket of its day on the caller's calendar", async (t) => {
  const late = await entry({ start: "2025-03-31T23:30:00Z", duration: 1800, description: "Late", project_id: alpha.id, billable: true });
  const early = await entry({ start: "2025-03-31T02:00:00Z", duration: 600, description: "Early" });
  type Point = { seconds: number; billable_amount_in_cents: number; by_rate: Record<string, number> };
  const graph = async (granularity: string) => {
    const res = await post("search/time_entries/totals", { start_date: "2025-03-01", end_date: "2025-05-31", with_graph: true, granularity });
    t.equal(res.body.seconds, 15300 + 1800 + 600);
    return (res.body.graph as Point[]).map((p) => [p.seconds, p.billable_amount_in_cents, p.by_rate]);
  };
  const [march, none] = [[15300 + 1800 + 600, 25000, { "10000": 9000 }], [0, 0, {}]];
  t.same(await graph("month"), [march, none, none], "in UTC both in March");
  const weeks = await graph("week");
  t.equal(weeks.length, 14, "weeks from Monday 2025-02-24 to Monday 2025-05-26");
  t.same([weeks[2], weeks[4], weeks[5]], [[15300, 20000, { "10000": 7200 }], none, [2400, 5000, { "10000": 1800 }]]);

  await call("PUT", "/api/v9/me", { timezone: "Europe/Berlin" });
  t.same(await graph("month"), [[15300 + 600, 20000, { "10000": 7200 }], [1800, 5000, { "10000": 1800 }], none], "in Berlin the late one on April 1st");
  await call("PUT", "/api/v9/me", { timezone: "America/New_York" });
  const west = await graph("week");
  t.same([west[2], west[4], west[5]], [[15300, 20000, { "10000": 7200 }], [600, 0, {}], [1800, 5000, { "10000": 1800 }]], "in New York the early one on Sunday March 30th");
  await call("PUT", "/api/v9/me", { timezone: "UTC" });
  for (const e of [late, early]) await call("DELETE", `${v9}/time_entries/${e.id}`, undefined);
});

t.test("weekly: seven days from start_date, one row per user and project", async (t) => {
  const res = await post("weekly/time_entries", { end_date: undefined });
  t.same(
    res.body.map((r: { user_id: number; project_id: number | null; seconds: number[] }) => [r.user_id, r.project_id, r.seconds]),
    [
      [mia.id, alpha.id, [0, 1200, 0, 0, 0, 0, 0]],
      [owner.id, alpha.id, [5400, 600, 0, 0, 0, 0, 0]],
      [owner.id, null, [0, 0, 7200, 900, 0, 0, 0]],
    ],
  );
  t.same(res.body[1], {
    user_id: owner.id,
    user_name: "owner",
    project_id: alpha.id,
    project_name: "Alpha",
    client_name: "Acme",
    project_color: "#c9806b",
    project_hex_color: "#c9806b",
    planned_task_id: null,
    seconds: [5400, 600, 0, 0, 0, 0, 0],
    billable_seconds: [5400, 600, 0, 0, 0, 0, 0],
    billable_amounts_in_cents: [15000, 1667, 0, 0, 0, 0, 0],
    hourly_rate_in_cents: 10000,
    currency: "USD",
  });
  t.equal(res.headers.get("x-range-end"), "2025-03-16");
  await call("PUT", "/api/v9/me", { timezone: "Asia/Tokyo" });
  const east = await post("weekly/time_entries", { end_date: undefined, project_ids: [null] });
  t.same(east.body[0].seconds, [0, 0, 7200, 0, 900, 0, 0], "23:30 UTC is the next day in Tokyo");
  await call("PUT", "/api/v9/me", { timezone: "UTC" });
  t.equal((await post("weekly/time_entries", {})).status, 200, "end_date naming the seventh day");
  await refused("weekly/time_entries", { end_date: "2025-03-20" }, reportParameterUnsupported("end_date").rawMessage);
});

t.test("the reports as files: the same rows as CSV, XLSX and PDF, named by kind and days; a refused body is JSON", async (t) => {
  const file = (path: string, body: Record<string, unknown> = {}, user: TrackUser = owner) => sys.api("POST", `${base}/${path}`, { auth: user.auth, body: { ...WEEK, ...body } });
  const csv = await file("search/time_entries.csv");
  t.equal(csv.status, 200, csv.text.slice(0, 200));
  t.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
  t.match(csv.headers.get("content-disposition"), /attachment; filename="detailed_report_2025-03-10_2025-03-16.csv"/);
  const lines = csv.text.trim().split(/\r?\n/);
  t.match(lines[0], /^User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount \(USD\)/);
  t.equal(lines.length - 1, (await detailed({ page_size: 50 })).body.length, "one line per detailed row");
  t.ok(lines.some((l) => l.includes("Zeta") && l.includes("02:00:00")), "a row's duration as HH:MM:SS");
  const mine = await file("search/time_entries.csv", {}, mia);
  t.equal(mine.text.trim().split(/\r?\n/).length - 1, 1, "a member's file holds their own entries only");
  const summaryCsv = await file("summary/time_entries.csv");
  t.equal(summaryCsv.status, 200);
  t.match(summaryCsv.text, /Alpha/);
  const weekly = await file("weekly/time_entries.csv");
  t.equal(weekly.status, 200);
  t.match(weekly.text.split(/\r?\n/)[0], /2025-03-10.*2025-03-16/, "the week's days as columns");
  for (const [path, type, magic] of [
    ["search/time_entries.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "PK"],
    ["summary/time_entries.pdf", "application/pdf", "%PDF"],
    ["weekly/time_entries.pdf", "application/pdf", "%PDF"],
  ]) {
    const res = await file(path);
    t.same([res.status, res.headers.get("content-type"), res.text.slice(0, magic.length)], [200, type, magic], path);
  }
  const refused = await file("search/time_entries.csv", { start_date: "2025-13-01" });
  t.same([refused.status, refused.headers.get("content-type")?.startsWith("application/json")], [400, true], "a bad body is the JSON 400 before any byte");
});
