import t, { type Test } from "tap";
import ExcelJS from "exceljs";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import { periodsOf, previousPeriod, variation } from "../insights/rules.js";
import { reportRange } from "../reports/rules.js";
import {
  currencyInvalid,
  insightCurrencyRequired,
  insightIdsMissing,
  insightRangeTooLarge,
  insightResolutionInvalid,
  insightTooManyIds,
  noFilterParameter,
  rangeOutOfBounds,
  rangeParameterFormat,
  rangeParameterRequired,
  reportFeatureNeeded,
} from "../errors.js";

// The insights (Reports API v3 comparative, data_trends/{clients,projects,users},
// profitability/projects; Insights API data_trends/projects and its exports): the same entries
// as the reports count (filters, the range in the caller's zone, who sees what, rates), summed
// per period, per client, project or user, in one currency, with labour costs.
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
const dollar = await call("POST", `${v9}/projects`, { name: "Dollar", billable: true, rate: 10, currency: "USD" });
// Labour costs per hour: the owner (the project's creator, a project user already) 30, mia 40.
await call("POST", `${v9}/project_users`, { project_id: alpha.id, user_id: mia.id, rate: 150, labour_cost: 40 });
const ownersOnAlpha = (await call("GET", `${v9}/project_users?project_ids=${alpha.id}`, undefined)).find((pu: { user_id: number }) => pu.user_id === owner.id);
await call("PUT", `${v9}/project_users/${ownersOnAlpha.id}`, { labour_cost: 30 });

async function entry(body: Record<string, unknown>) {
  return call("POST", `${v9}/time_entries`, { created_with: "insights test", ...body });
}
// The week of 2025-03-10 (Monday) to 2025-03-16, and the one before.
await entry({ start: "2025-03-10T09:00:00Z", duration: 3600, description: "Build", project_id: alpha.id, billable: true });
await entry({ start: "2025-03-11T09:00:00Z", duration: 1800, description: "Build", project_id: alpha.id, billable: true });
await entry({ start: "2025-03-10T10:00:00Z", duration: 7200, description: "Review", project_id: alpha.id, billable: true, user_id: mia.id });
await entry({ start: "2025-03-12T10:00:00Z", duration: 900, description: "Admin", user_id: mia.id });
await entry({ start: "2025-03-12T11:00:00Z", duration: 600, description: "Build", project_id: beta.id, billable: true, user_id: ned.id });
await entry({ start: "2025-03-12T12:00:00Z", duration: 3600, description: "Abroad", project_id: dollar.id, billable: true });
await entry({ start: "2025-03-13T10:00:00Z", duration: 1200, description: "Hidden", project_id: secret.id, user_id: mia.id });
await entry({ start: "2025-03-14T11:00:00Z", duration: -1, description: "Running" });
await entry({ start: "2025-03-04T09:00:00Z", duration: 1800, description: "Before", project_id: alpha.id, billable: true });
await entry({ start: "2025-03-05T09:00:00Z", duration: 3600, description: "Before", project_id: beta.id, user_id: mia.id });

const reports = `/reports/api/v3/workspace/${wid}`;
const insights = `/insights/api/v1/workspace/${wid}`;
const WEEK = { start_date: "2025-03-10", end_date: "2025-03-16" };

async function post(t: Test, path: string, body: unknown, user: TrackUser = owner) {
  const res = await sys.api("POST", path, { auth: user.auth, body });
  t.equal(res.status, 200, `${path}: ${res.text}`);
  return res.body;
}
async function refused(t: Test, path: string, body: unknown, status: number, message: string, user: TrackUser = owner) {
  const res = await sys.api("POST", path, { auth: user.auth, body });
  t.equal(res.status, status, `${path} ${JSON.stringify(body)}: ${res.text}`);
  t.equal(res.body, message, JSON.stringify(body));
}
/** A graph's points as [date, value]. */
const points = (graph: { data: Record<string, unknown>[] }, value: string) => graph.data.map((p) => [p.date, p[value]]);

t.test("rules: periods dated by their first day in the range, the previous period, variations", async (t) => {
  const march = reportRange({ startDate: "2025-03-01", endDate: "2025-03-31" }, "UTC");
  t.same(periodsOf(march, "week", 0).dates, ["2025-03-01", "2025-03-02", "2025-03-09", "2025-03-16", "2025-03-23", "2025-03-30"], "weeks from Sunday");
  t.same(periodsOf(reportRange({ startDate: "2024-12-20", endDate: "2025-02-10" }, "UTC"), "month", 1).dates, ["2024-12-20", "2025-01-01", "2025-02-01"]);
  const week = reportRange({ startDate: "2025-03-31", endDate: "2025-04-06" }, "Europe/Berlin");
  const before = previousPeriod(week, undefined, "Europe/Berlin");
  t.same([before.first, before.last], [{ year: 2025, month: 3, day: 24 }, { year: 2025, month: 3, day: 30 }]);
  t.same([before.from.toISOString(), before.to.toISOString()], ["2025-03-23T23:00:00.000Z", "2025-03-30T22:00:00.000Z"], "local midnights across the change to summer time");
  t.same([variation(150, 100), variation(50, 100), variation(1, 3), variation(5, 0)], [50, -50, -66.67, null]);
});

t.test("comparative: tracked seconds per day of the range, running entries left out", async (t) => {
  const body = await post(t, `${reports}/comparative`, WEEK);
  t.same(body, {
    graph: {
      resolution: "day",
      data: [
        { date: "2025-03-10", total_seconds: 10800 },
        { date: "2025-03-11", total_seconds: 1800 },
        { date: "2025-03-12", total_seconds: 5100 },
        { date: "2025-03-13", total_seconds: 1200 },
        { date: "2025-03-14", total_seconds: 0 },
        { date: "2025-03-15", total_seconds: 0 },
        { date: "2025-03-16", total_seconds: 0 },
      ],
    },
  });
});

t.test("comparative: weeks from the caller's first day and months, each dated by its first day in the range", async (t) => {
  const weeks = await post(t, `${reports}/comparative`, { start_date: "2025-03-01", end_date: "2025-03-31", resolution: "week" });
  t.equal(weeks.graph.resolution, "week");
  t.same(points(weeks.graph, "total_seconds"), [
    ["2025-03-01", 0],
    ["2025-03-03", 5400],
    ["2025-03-10", 18900],
    ["2025-03-17", 0],
    ["2025-03-24", 0],
    ["2025-03-31", 0],
  ]);
  const months = await post(t, `${reports}/comparative`, { start_date: "2025-01-15", end_date: "2025-03-31" });
  t.equal(months.graph.resolution, "week", "by default from the range's length: weeks up to 98 days");
  const byMonth = await post(t, `${reports}/comparative`, { start_date: "2025-01-15", end_date: "2025-03-31", resolution: "month" });
  t.same(points(byMonth.graph, "total_seconds"), [["2025-01-15", 0], ["2025-02-01", 0], ["2025-03-01", 24300]]);
});

t.test("comparative: the reports' filters and rounding", async (t) => {
  const total = async (body: Record<string, unknown>) => (await post(t, `${reports}/comparative`, { ...WEEK, ...body })).graph.data.reduce((s: number, p: { total_seconds: number }) => s + p.total_seconds, 0);
  t.equal(await total({ project_ids: [alpha.id] }), 12600);
  t.equal(await total({ project_ids: [null] }), 900, "null: without project");
  t.equal(await total({ client_ids: [acme.id] }), 12600);
  t.equal(await total({ user_ids: [ned.id] }), 600);
  t.equal(await total({ billable: false }), 2100);
  const group = await call("POST", `/api/v9/organizations/${world.organizationId}/groups`, { name: "Reviewers", users: [mia.id] });
  t.equal(await total({ group_ids: [group.group_id] }), 9300);
  t.equal(await total({ rounding: 1, rounding_minutes: 60 }), 3 * 3600 + 3600 + 3 * 3600 + 3600, "each entry rounded up to the hour");
});

t.test("comparative: a member sees their own time, none of a private project they are not in", async (t) => {
  const body = await post(t, `${reports}/comparative`, WEEK, mia);
  t.same(points(body.graph, "total_seconds").slice(0, 4), [["2025-03-10", 7200], ["2025-03-11", 0], ["2025-03-12", 900], ["2025-03-13", 0]]);
  const others = await post(t, `${reports}/comparative`, { ...WEEK, user_ids: [owner.id] }, mia);
  t.equal(others.graph.data.every((p: { total_seconds: number }) => p.total_seconds === 0), true, "not others', even when named");
});

t.test("comparative: the range's and the resolution's refusals", async (t) => {
  const path = `${reports}/comparative`;
  await refused(t, path, {}, 400, noFilterParameter().rawMessage);
  await refused(t, path, { resolution: "day" }, 400, rangeParameterRequired("start_date").rawMessage);
  await refused(t, path, { start_date: "2025-02-30" }, 400, rangeParameterFormat("start_date").rawMessage);
  await refused(t, path, { start_date: "2005-12-31" }, 400, rangeOutOfBounds("start_date", "2006-01-01", "2030-01-01").rawMessage);
  await refused(t, path, { ...WEEK, resolution: "year" }, 400, insightResolutionInvalid(["day", "week", "month"]).rawMessage);
  await refused(t, path, { start_date: "2025-01-01", end_date: "2025-04-03", resolution: "day" }, 400, insightRangeTooLarge().rawMessage);
  t.equal((await post(t, path, { start_date: "2025-01-01", end_date: "2025-04-02", resolution: "day" })).graph.data.length, 92, "92 days by day are fine");
});

t.test("data trends of projects: one to five projects in one currency, every project in every period", async (t) => {
  const body = await post(t, `${reports}/data_trends/projects`, { ...WEEK, currency: "eur", ids: [beta.id, alpha.id] });
  t.equal(body.currency, "EUR");
  t.equal(body.graph.resolution, "day");
  t.equal(body.graph.data.length, 7);
  t.same(body.graph.data[0], {
    date: "2025-03-10",
    projects: [
      { project_id: alpha.id, name: "Alpha", color: alpha.color, currency: "EUR", total_seconds: 10800, billable_seconds: 10800, earnings: 10000 + 30000 },
      { project_id: beta.id, name: "Beta", color: beta.color, currency: "EUR", total_seconds: 0, billable_seconds: 0, earnings: 0 },
    ],
  });
  t.same(body.graph.data[2].projects[1], { project_id: beta.id, name: "Beta", color: beta.color, currency: "EUR", total_seconds: 600, billable_seconds: 600, earnings: 333 }, "the workspace's default rate");
  const dollars = await post(t, `${reports}/data_trends/projects`, { ...WEEK, currency: "USD", ids: [alpha.id, dollar.id], resolution: "week" });
  t.same(dollars.graph.data, [{ date: "2025-03-10", projects: [{ project_id: dollar.id, name: "Dollar", color: dollar.color, currency: "USD", total_seconds: 3600, billable_seconds: 3600, earnings: 1000 }] }], "only projects in that currency");
});

t.test("data trends of projects: the body's refusals", async (t) => {
  const path = `${reports}/data_trends/projects`;
  await refused(t, path, { ...WEEK, ids: [alpha.id] }, 400, insightCurrencyRequired().rawMessage);
  await refused(t, path, { ...WEEK, currency: "EURO", ids: [alpha.id] }, 400, currencyInvalid().rawMessage);
  await refused(t, path, { ...WEEK, currency: "EUR" }, 400, insightIdsMissing().rawMessage);
  await refused(t, path, { ...WEEK, currency: "EUR", ids: [1, 2, 3, 4, 5, 6] }, 400, insightTooManyIds(5).rawMessage);
  await refused(t, path, { currency: "EUR", ids: [alpha.id] }, 400, rangeParameterRequired("start_date").rawMessage);
  t.same((await post(t, path, { ...WEEK, currency: "EUR", ids: [999999999] })).graph.data[0].projects, [], "an id of nothing shows nothing");
});

t.test("data trends: a member sees their own time, private projects they are in, and amounts as the workspace allows", async (t) => {
  const body = await post(t, `${reports}/data_trends/projects`, { ...WEEK, currency: "EUR", ids: [alpha.id, secret.id], resolution: "week" }, mia);
  t.same(body.graph.data[0].projects.map((p: { project_id: number; total_seconds: number; earnings: number }) => [p.project_id, p.total_seconds, p.earnings]), [[alpha.id, 7200, 30000]]);
  const users = await post(t, `${reports}/data_trends/users`, { ...WEEK, currency: "EUR", resolution: "week" }, mia);
  t.same(users.graph.data[0].users.map((u: { user_id: number; total_seconds: number }) => [u.user_id, u.total_seconds]), [[mia.id, 8100]]);
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  const hidden = await post(t, `${reports}/data_trends/projects`, { ...WEEK, currency: "EUR", ids: [alpha.id], resolution: "week" }, mia);
  t.equal(hidden.graph.data[0].projects[0].earnings, null);
  t.equal(hidden.graph.data[0].projects[0].billable_seconds, 7200);
  await world.setWorkspace({ only_admins_see_billable_rates: false });
});

t.test("data trends of clients and users: every one with time, or the ones named", async (t) => {
  const clients = await post(t, `${reports}/data_trends/clients`, { ...WEEK, currency: "EUR", resolution: "week" });
  t.same(clients, {
    currency: "EUR",
    graph: { resolution: "week", data: [{ date: "2025-03-10", clients: [{ client_id: acme.id, name: "Acme", total_seconds: 12600, billable_seconds: 12600, earnings: 40000 + 5000 }] }] },
  });
  const users = await post(t, `${reports}/data_trends/users`, { ...WEEK, currency: "EUR", resolution: "week" });
  t.same(users.graph.data[0].users.map((u: { user_id: number; name: string; total_seconds: number }) => [u.user_id, u.name, u.total_seconds]), [
    [mia.id, "mia", 9300],
    [ned.id, "ned", 600],
    [owner.id, "owner", 5400],
  ]);
  const named = await post(t, `${reports}/data_trends/users`, { ...WEEK, currency: "EUR", resolution: "week", ids: [ned.id] });
  t.same(named.graph.data[0].users.map((u: { user_id: number }) => u.user_id), [ned.id]);
  await refused(t, `${reports}/data_trends/clients`, WEEK, 400, insightCurrencyRequired().rawMessage);
});

t.test("profitability of projects: earnings against labour cost, per project and per period", async (t) => {
  const body = await post(t, `${reports}/profitability/projects`, { ...WEEK, currency: "EUR" });
  t.equal(body.currency, "EUR");
  t.same(body.table, [
    { project_id: alpha.id, name: "Alpha", color: alpha.color, currency: "EUR", total_seconds: 12600, billable_seconds: 12600, earnings: 45000, labour_cost: 4500 + 8000 },
    { project_id: beta.id, name: "Beta", color: beta.color, currency: "EUR", total_seconds: 600, billable_seconds: 600, earnings: 333, labour_cost: 0 },
    { project_id: secret.id, name: "Secret", color: secret.color, currency: "EUR", total_seconds: 1200, billable_seconds: 0, earnings: 0, labour_cost: 0 },
  ]);
  t.same(body.graph.resolution, "day");
  t.same(body.graph.data.slice(0, 4), [
    { date: "2025-03-10", earnings: 40000, labour_cost: 3000 + 8000 },
    { date: "2025-03-11", earnings: 5000, labour_cost: 1500 },
    { date: "2025-03-12", earnings: 333, labour_cost: 0 },
    { date: "2025-03-13", earnings: 0, labour_cost: 0 },
  ]);
  const withoutClient = await post(t, `${reports}/profitability/projects`, { ...WEEK, currency: "EUR", client_ids: [null] });
  t.same(withoutClient.table.map((p: { project_id: number }) => p.project_id), [beta.id, secret.id], "null: projects without client");
  const dollars = await post(t, `${reports}/profitability/projects`, { ...WEEK, currency: "USD", resolution: "week" });
  t.same(dollars.table.map((p: { project_id: number; earnings: number }) => [p.project_id, p.earnings]), [[dollar.id, 1000]]);
  t.same(dollars.graph, { resolution: "week", data: [{ date: "2025-03-10", earnings: 1000, labour_cost: 0 }] });
  await refused(t, `${reports}/profitability/projects`, WEEK, 400, insightCurrencyRequired().rawMessage);
  await refused(t, `${reports}/profitability/projects`, { ...WEEK, currency: "EUR" }, 403, "Admin permissions required", mia);
});

t.test("project trends: seconds per day against the previous period, with the contributors", async (t) => {
  const body = await post(t, `${insights}/data_trends/projects`, WEEK);
  t.same(body.map((p: { project_id: number }) => p.project_id), [alpha.id, dollar.id, secret.id, beta.id], "the most tracked first");
  t.same(body[0], {
    project_id: alpha.id,
    start: "2025-03-10",
    end: "2025-03-16",
    previousStart: "2025-03-03",
    current_period_seconds: [10800, 1800, 0, 0, 0, 0, 0],
    previous_period_seconds: [0, 1800, 0, 0, 0, 0, 0],
    user_ids: [owner.id, mia.id].sort((a, b) => a - b),
  });
  t.same(body[3].previous_period_seconds, [0, 0, 3600, 0, 0, 0, 0]);
  const earlier = await post(t, `${insights}/data_trends/projects`, { ...WEEK, previous_period_start: "2025-02-24", project_ids: [beta.id] });
  t.same(earlier, [{ project_id: beta.id, start: "2025-03-10", end: "2025-03-16", previousStart: "2025-02-24", current_period_seconds: [0, 0, 600, 0, 0, 0, 0], previous_period_seconds: [0, 0, 0, 0, 0, 0, 0], user_ids: [ned.id] }]);
  await refused(t, `${insights}/data_trends/projects`, { ...WEEK, previous_period_start: "2025-13-01" }, 400, rangeParameterFormat("previous_period_start").rawMessage);
  await refused(t, `${insights}/data_trends/projects`, {}, 400, noFilterParameter().rawMessage);
  await refused(t, `${insights}/data_trends/projects`, WEEK, 403, "Admin permissions required", mia);
});

/** An export's answer, its bytes kept whole. */
async function download(path: string, body: unknown, user: TrackUser = owner) {
  const headers: Record<string, string> = { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${user.auth.basic![0]}:${user.auth.basic![1]}`).toString("base64")}` };
  const res = await fetch(`${sys.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

t.test("exports: employee profitability as CSV, one row per member", async (t) => {
  const res = await download(`${insights}/profitability/employees.csv`, { ...WEEK, currency: "EUR" });
  t.equal(res.status, 200, res.bytes.toString());
  t.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
  t.match(res.headers.get("content-disposition"), /attachment; filename="employee_profitability_2025-03-10_2025-03-16\.csv"/);
  const lines = res.bytes.toString().trim().split("\n");
  t.equal(lines[0], "Member,Email,Total time,Billable time,Revenue (EUR),Labor cost (EUR),Profit (EUR)");
  t.match(lines[1], /^mia,mia[^,]*@example\.com,02:35:00,02:00:00,300\.00,80\.00,220\.00$/);
  t.equal(lines.length, 4, "mia, ned, owner");
});

t.test("exports: the employees' resolution is checked, quarters too", async (t) => {
  const quarter = await download(`${insights}/profitability/employees.csv`, { ...WEEK, currency: "EUR", resolution: "quarter" });
  t.equal(quarter.status, 200, quarter.bytes.toString());
  const year = await download(`${insights}/profitability/employees.csv`, { ...WEEK, currency: "EUR", resolution: "year" });
  t.equal(year.status, 400);
  t.equal(JSON.parse(year.bytes.toString()), insightResolutionInvalid(["day", "week", "month", "quarter"]).rawMessage);
});

t.test("exports: project profitability as XLSX", async (t) => {
  const res = await download(`${insights}/profitability/projects.xlsx`, { ...WEEK, currency: "EUR" });
  t.equal(res.status, 200, res.bytes.toString());
  t.equal(res.headers.get("content-type"), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(res.bytes as unknown as ArrayBuffer);
  const sheet = book.worksheets[0];
  const rows = sheet.getSheetValues().filter(Boolean).map((r) => (r as ExcelJS.CellValue[]).slice(1));
  t.same(rows[0], ["Project profitability"]);
  const header = rows.findIndex((r) => r[0] === "Project");
  t.same(rows[header], ["Project", "Client", "Total time", "Billable time", "Revenue (EUR)", "Labor cost (EUR)", "Profit (EUR)"]);
  t.same(rows[header + 1].slice(0, 2), ["Alpha", "Acme"]);
  t.same(rows[header + 1].slice(4), [450, 125, 325]);
  t.same(rows[rows.length - 1].slice(4), [453.33, 125, 328.33], "the totals row");
});

t.test("exports: project trends as CSV", async (t) => {
  const res = await download(`${insights}/trends/projects.csv`, WEEK);
  t.equal(res.status, 200, res.bytes.toString());
  const lines = res.bytes.toString().trim().split("\n");
  t.equal(lines[0], "Project Name,Created,Status,Contributors,Total (hours),Total Variation,Daily Average (hours),Daily Average Variation");
  t.equal(lines[1], `Alpha,2025-03-20,Active,"mia, owner",3.5,600,1.75,250`);
  t.equal(lines[2], "Dollar,2025-03-20,Active,owner,1,,1,", "no variation without time before");
});

t.test("exports: a refused body is the family's JSON error, before any byte", async (t) => {
  const missing = await download(`${insights}/profitability/projects.csv`, WEEK);
  t.equal(missing.status, 400);
  t.equal(JSON.parse(missing.bytes.toString()), insightCurrencyRequired().rawMessage);
  const member = await download(`${insights}/trends/projects.xlsx`, WEEK, mia);
  t.equal(member.status, 403);
  t.equal(JSON.parse(member.bytes.toString()), "Admin permissions required");
  t.equal((await download(`${insights}/trends/projects.pdf`, WEEK)).status, 404, "the extensions are csv and xlsx");
});

t.test("premium: the insights of the Insights API and profitability need it; the billable filter too", async (t) => {
  await world.setPlan(false);
  const needed = reportFeatureNeeded().rawMessage;
  await refused(t, `${reports}/profitability/projects`, { ...WEEK, currency: "EUR" }, 402, needed);
  await refused(t, `${insights}/data_trends/projects`, WEEK, 402, needed);
  t.equal((await download(`${insights}/profitability/employees.xlsx`, { ...WEEK, currency: "EUR" })).status, 402);
  await refused(t, `${reports}/comparative`, { ...WEEK, billable: true }, 402, needed);
  await refused(t, `${reports}/data_trends/users`, { ...WEEK, currency: "EUR", billable: true }, 402, needed);
  t.equal((await post(t, `${reports}/comparative`, WEEK)).graph.data.length, 7, "the comparative report itself is free");
  t.equal((await post(t, `${reports}/data_trends/clients`, { ...WEEK, currency: "EUR" })).currency, "EUR", "so are the data trends");
  await world.setPlan(true);
});

t.test("a stranger is refused with the reference's 403", async (t) => {
  const stranger = await sys.signup("stranger");
  await refused(t, `${reports}/comparative`, WEEK, 403, "Workspace not found/accessible", stranger);
  await refused(t, `${insights}/data_trends/projects`, WEEK, 403, "Workspace not found/accessible", stranger);
});
