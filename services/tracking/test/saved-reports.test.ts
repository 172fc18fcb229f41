import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { SavedReportService } from "../../../gen/tracking/v1/saved_reports_pb.js";
import { trackingWorld } from "./tracking-support.js";
import { periodDays, reportTokenHash } from "../saved-reports/rules.js";
import {
  publicReportsAdminsOnly,
  savedReportFixedDaterangeBlank,
  savedReportNameBlank,
  savedReportNotFound,
  savedReportPublicBlank,
  savedReportTypeInvalid,
  savedReportTypeInvalidOnUpdate,
  sharedReportOwnerGone,
  sharedReportPeriodUnsupported,
  sharedReportTokenInvalid,
} from "../errors.js";

/**
 * Saved reports (GET/POST/PUT /api/v9/workspaces/{id}/reports/shared, GET/PUT/DELETE .../{report_id},
 * PATCH .../bulk_delete) and their runs by token (POST /reports/api/v3/shared/{token} and its /csv,
 * /xlsx, /pdf): what a body saves, who sees and changes which report, and that a run answers what
 * the workspace's report endpoints answer for the saved parameters, as the owner sees them.
 */

const clock = new ManualClock(new Date("2025-03-20T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner, call } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
await world.setWorkspace({ default_hourly_rate: 20, default_currency: "EUR" });
const mia = await world.join("mia");
const ada = await world.join("ada", { admin: true });
const stranger = await sys.signup("stranger");

const v9 = `/api/v9/workspaces/${wid}`;
const acme = await call("POST", `${v9}/clients`, { name: "Acme" });
const alpha = await call("POST", `${v9}/projects`, { name: "Alpha", client_id: acme.id, billable: true, rate: 100 });
const beta = await call("POST", `${v9}/projects`, { name: "Beta" });
const entry = (body: Record<string, unknown>) => call("POST", `${v9}/time_entries`, { created_with: "saved reports test", ...body });
await entry({ start: "2025-03-10T09:00:00Z", duration: 3600, description: "Build", project_id: alpha.id, billable: true, tags: ["red"] });
await entry({ start: "2025-03-11T09:00:00Z", duration: 1800, description: "Build", project_id: alpha.id, billable: true });
await entry({ start: "2025-03-12T10:00:00Z", duration: 7200, description: "Review", project_id: beta.id, user_id: mia.id });
await entry({ start: "2025-03-13T10:00:00Z", duration: 900, description: "Admin" });
await entry({ start: "2025-03-18T10:00:00Z", duration: 600, description: "Next week", project_id: beta.id });

const base = `${v9}/reports/shared`;
const WEEK = { start_date: "2025-03-10", end_date: "2025-03-16" };
const summaryParams = { report_type: "summary", ...WEEK, grouping: "projects", sub_grouping: "users" };

async function save(body: Record<string, unknown>, user: TrackUser = owner) {
  return call("POST", base, { name: "Weekly hours", public: false, fixed_daterange: true, params: summaryParams, ...body }, user);
}
const run = (token: string, body?: unknown) => sys.api("POST", `/reports/api/v3/shared/${token}`, { body });
const tracking = world.tracking;

t.test("POST saves a report and answers it field for field; GET, list, PUT and DELETE", async (t) => {
  const res = await sys.api("POST", base, { auth: owner.auth, body: { name: "  Weekly hours ", public: true, fixed_daterange: true, params: summaryParams } });
  t.equal(res.status, 200, res.text);
  t.equal(res.headers.get("cache-control"), "no-store", "the answer carries the token");
  t.same(Object.keys(res.body).sort(), [
    "deleted_at", "fixed_daterange", "id", "isNAResource", "is_commenting_enabled", "name", "params", "public", "scheduled_email_gids", "scheduled_email_uids", "token", "uid", "updated_at", "updated_by",
  ]);
  const saved = res.body;
  t.match(saved, { name: "Weekly hours", public: true, fixed_daterange: true, uid: owner.id, updated_by: owner.id, deleted_at: null, isNAResource: false, is_commenting_enabled: false, scheduled_email_uids: [], scheduled_email_gids: [] });
  t.match(saved.token, /^[0-9a-f]{32}$/);
  t.same(JSON.parse(saved.params), summaryParams, "params is the JSON text of the saved object");
  const stamp = (d: Date) => `${d.toISOString().slice(0, 19)}+00:00`;
  t.equal(saved.updated_at, stamp(clock.now()));

  t.same((await call("GET", `${base}/${saved.id}`, undefined)), saved, "GET answers the same, token included");
  t.same((await call("GET", base, undefined)).map((r: { id: number }) => r.id), [saved.id]);

  clock.advance(60_000);
  const put = await call("PUT", `${base}/${saved.id}`, { name: "Renamed", params: { ...summaryParams, grouping: "clients" } }, ada);
  t.match(put, { id: saved.id, name: "Renamed", public: true, fixed_daterange: true, token: saved.token, uid: owner.id, updated_by: ada.id, updated_at: stamp(clock.now()) }, "PUT keeps public, fixed_daterange and the token when left out");
  t.equal(JSON.parse(put.params).grouping, "clients");

  const regenerated = await call("PUT", `${base}/${saved.id}`, { name: "Renamed", params: summaryParams, regenerate_token: true });
  t.not(regenerated.token, saved.token, "regenerate_token gives a new token");
  t.same([(await run(saved.token)).status, (await run(saved.token)).body], [403, sharedReportTokenInvalid().rawMessage], "the old one stops working");
  t.equal((await run(regenerated.token)).status, 200, "the new one runs");

  const del = await sys.api("DELETE", `${base}/${saved.id}`, { auth: owner.auth });
  t.equal(del.status, 200);
  t.match(del.body, { id: saved.id, name: "Renamed", deleted_at: stamp(clock.now()) }, "DELETE answers the report as it was, deleted_at set");
  const gone = await sys.api("GET", `${base}/${saved.id}`, { auth: owner.auth });
  t.same([gone.status, gone.body], [404, savedReportNotFound(saved.id).rawMessage]);
  t.same([(await sys.api("DELETE", `${base}/${saved.id}`, { auth: owner.auth })).status], [404]);
  t.equal((await run(regenerated.token)).status, 403, "a deleted report's token runs nothing");
});

t.test("the token is kept sealed and looked up by its SHA-256: the database holds no token", async (t) => {
  const saved = await save({});
  const row = await tracking("saved_reports").where({ id: saved.id }).first();
  t.equal(row.token_hash, reportTokenHash(saved.token));
  t.notMatch(JSON.stringify(row), saved.token, "no column holds the token in the clear");
  t.match(row.token_sealed, /^v1\./);
  await call("DELETE", `${base}/${saved.id}`, undefined);
});

t.test("bodies are checked in the reference's order, with its texts; nothing is saved", async (t) => {
  const before = (await tracking("saved_reports").count({ n: "*" }))[0].n;
  const full = { name: "R", public: false, fixed_daterange: true, params: summaryParams };
  for (const [body, message] of [
    [{ ...full, name: "  " }, savedReportNameBlank().rawMessage],
    [{ ...full, name: undefined }, savedReportNameBlank().rawMessage],
    [{ ...full, fixed_daterange: undefined }, savedReportFixedDaterangeBlank().rawMessage],
    [{ ...full, public: undefined }, savedReportPublicBlank().rawMessage],
    [{ ...full, params: undefined }, savedReportTypeInvalid().rawMessage],
    [{ ...full, params: { ...summaryParams, report_type: "monthly" } }, savedReportTypeInvalid().rawMessage],
    [{ ...full, params: { start_date: "2025-03-10" } }, savedReportTypeInvalid().rawMessage],
    [{ ...full, params: { ...summaryParams, project_ids: "all" } }, "Invalid params: Invalid value for project_ids: expected array"],
    [{ ...full, params: { ...summaryParams, period: "lastDecade" } }, sharedReportPeriodUnsupported().rawMessage],
    [{ ...full, params: { report_type: "weekly", period: "thisMonth" } }, sharedReportPeriodUnsupported().rawMessage],
  ] as const) {
    const res = await sys.api("POST", base, { auth: owner.auth, body });
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  const saved = await save({});
  const put = await sys.api("PUT", `${base}/${saved.id}`, { auth: owner.auth, body: { name: "R", params: { report_type: "x" } } });
  t.same([put.status, put.body], [400, savedReportTypeInvalidOnUpdate().rawMessage], "PUT words it its own way");
  const blank = await sys.api("PUT", `${base}/${saved.id}`, { auth: owner.auth, body: { name: "", params: summaryParams } });
  t.same([blank.status, blank.body], [400, savedReportNameBlank().rawMessage]);
  const long = await sys.api("POST", base, { auth: owner.auth, body: { ...full, name: "x".repeat(256) } });
  t.equal(long.status, 400, "a name over the column's 255 characters");
  await call("DELETE", `${base}/${saved.id}`, undefined);
  t.equal((await tracking("saved_reports").count({ n: "*" }))[0].n, before);
});

t.test("members save private reports of their own; public ones are admins'; admins see and change every report", async (t) => {
  const refused = await sys.api("POST", base, { auth: mia.auth, body: { name: "Mine", public: true, fixed_daterange: true, params: summaryParams } });
  t.same([refused.status, refused.body], [403, publicReportsAdminsOnly().rawMessage]);
  const miaPrivate = await save({ name: "Mia's" }, mia);
  const ownerPrivate = await save({ name: "Owner's private" });
  const ownerPublic = await save({ name: "Owner's public", public: true });
  const adaPublic = await save({ name: "Ada's public", public: true }, ada);

  const names = async (user: TrackUser) => (await call("GET", base, undefined, user)).map((r: { name: string }) => r.name);
  t.same(await names(mia), ["Ada's public", "Mia's", "Owner's public"], "a member: their own and the public ones, by name");
  t.same(await names(ada), ["Ada's public", "Mia's", "Owner's private", "Owner's public"], "an admin: every one");

  const hidden = await sys.api("GET", `${base}/${ownerPrivate.id}`, { auth: mia.auth });
  t.same([hidden.status, hidden.body], [404, savedReportNotFound(ownerPrivate.id).rawMessage], "another's private report is not there for a member");
  t.equal((await sys.api("GET", `${base}/${ownerPublic.id}`, { auth: mia.auth })).status, 200, "a public one is");
  const change = { name: "Taken over", params: summaryParams };
  t.same(
    [(await sys.api("PUT", `${base}/${ownerPublic.id}`, { auth: mia.auth, body: change })).status, (await sys.api("PUT", `${base}/${ownerPublic.id}`, { auth: mia.auth, body: change })).body],
    [403, publicReportsAdminsOnly().rawMessage],
    "a member may not change a public report",
  );
  t.equal((await sys.api("PUT", `${base}/${ownerPrivate.id}`, { auth: mia.auth, body: change })).status, 404);
  t.equal((await sys.api("DELETE", `${base}/${ownerPublic.id}`, { auth: mia.auth })).status, 404, "nor delete it");
  const miaPublic = await sys.api("PUT", `${base}/${miaPrivate.id}`, { auth: mia.auth, body: { ...change, public: true } });
  t.same([miaPublic.status, miaPublic.body], [403, publicReportsAdminsOnly().rawMessage], "nor make their own public");

  const byAdmin = await call("PUT", `${base}/${miaPrivate.id}`, { name: "Mia's, reviewed", params: summaryParams, public: true }, ada);
  t.match(byAdmin, { uid: mia.id, updated_by: ada.id, public: true }, "an admin changes a member's report; the owner stays");
  t.equal((await sys.api("GET", `${base}/${ownerPrivate.id}`, { auth: stranger.auth })).status, 404, "a stranger: the workspace is not there");
  for (const r of [miaPrivate, ownerPrivate, ownerPublic, adaPublic]) await call("DELETE", `${base}/${r.id}`, undefined, ada);
});

t.test("the list filters by name, public, fixed dates and schedules, sorts and pages", async (t) => {
  const a = await save({ name: "alpha report", public: true });
  const b = await save({ name: "Beta report", fixed_daterange: false, params: { ...summaryParams, period: "prevWeek" } });
  const c = await save({ name: "gamma" });
  await call("POST", `${v9}/scheduled_reports`, { bookmark_id: c.id, frequency: 7, user_ids: [owner.id] });
  const ids = async (query: string) => (await call("GET", `${base}?${query}`, undefined)).map((r: { id: number }) => r.id);
  t.same(await ids(""), [a.id, b.id, c.id], "by name, ignoring case");
  t.same(await ids("name=REPORT"), [a.id, b.id]);
  t.same(await ids("public=true"), [a.id]);
  t.same(await ids("fixed_dates=false"), [b.id]);
  t.same(await ids("scheduled=true"), [c.id]);
  t.same(await ids("scheduled=false"), [a.id, b.id]);
  t.same(await ids("sort_field=id&sort_direction=DESC"), [c.id, b.id, a.id]);
  t.same(await ids("per_page=2&page=2"), [c.id]);
  t.same(await ids("requestingUserID=12345"), [a.id, b.id, c.id], "requestingUserID is accepted and changes nothing");
  const scheduled = await call("GET", `${base}/${c.id}`, undefined);
  t.same([scheduled.scheduled_email_uids, scheduled.scheduled_email_gids], [[owner.id], []], "a report names whom its schedules mail");
  for (const [query, name] of [["page=0", "page"], ["per_page=0", "per_page"], ["per_page=201", "per_page"], ["sort_field=color", "sort_field"], ["sort_direction=up", "sort_direction"]]) {
    const res = await sys.api("GET", `${base}?${query}`, { auth: owner.auth });
    t.same([res.status, res.body], [400, `Invalid parameter ${name}.`], query);
  }
  await call("PATCH", `${base}/bulk_delete`, { ids: [a.id, b.id, c.id] });
  t.same(await tracking("scheduled_reports").where({ saved_report_id: c.id }), [], "deleting a report deletes its schedules");
});

t.test("PUT of several and bulk delete change all or none", async (t) => {
  const a = await save({ name: "A" });
  const b = await save({ name: "B" }, mia);
  const c = await save({ name: "C", public: true });
  const changed = await call("PUT", base, [
    { id: a.id, name: "A2", params: summaryParams },
    { id: b.id, name: "B2", params: summaryParams, fixed_daterange: false },
  ], ada);
  t.same(changed.map((r: { name: string }) => r.name), ["A2", "B2"], "answers the changed reports, in order");
  const invalid = await sys.api("PUT", base, { auth: owner.auth, body: [{ id: a.id, name: "A3", params: summaryParams }, { id: b.id, name: " ", params: summaryParams }] });
  t.same([invalid.status, invalid.body], [400, `Report ID ${b.id} failed with: ${savedReportNameBlank().rawMessage}`]);
  const missing = await sys.api("PUT", base, { auth: mia.auth, body: [{ id: b.id, name: "B3", params: summaryParams }, { id: a.id, name: "A3", params: summaryParams }, { id: 99999999, name: "X", params: summaryParams }] });
  t.same([missing.status, missing.body], [404, "Some IDs were not found: Only 1 Saved Reports found for 3 given IDs."], "another's private report is not found for a member");
  t.same((await call("GET", `${base}/${a.id}`, undefined)).name, "A2", "nothing changed");
  t.same((await call("GET", `${base}/${b.id}`, undefined)).name, "B2");
  const notArray = await sys.api("PUT", base, { auth: owner.auth, body: { id: a.id, name: "A" } });
  t.same([notArray.status, notArray.body], [400, "JSON is not valid"], "a PUT of several takes a list");
  const typed = await sys.api("PUT", base, { auth: owner.auth, body: [{ id: a.id, name: 5, params: summaryParams }] });
  t.same([typed.status, typed.body], [400, "Invalid value for name: expected string, got number"]);
  const long = await sys.api("PUT", base, { auth: owner.auth, body: [{ id: a.id, name: "x".repeat(256), params: summaryParams }] });
  t.equal(long.status, 400, "each report's declared limits hold");

  const refused = await sys.api("PATCH", `${base}/bulk_delete`, { auth: mia.auth, body: { ids: [b.id, c.id] } });
  t.same([refused.status, refused.body], [404, "Some IDs were not found: Only 1 Saved Reports found for 2 given IDs."], "a member deletes only their own");
  t.equal((await call("GET", base, undefined)).length, 3, "nothing deleted");
  const deleted = await call("PATCH", `${base}/bulk_delete`, { ids: [a.id, b.id, c.id, a.id] });
  t.same(deleted.map((r: { id: number }) => r.id).sort(), [a.id, b.id, c.id].sort(), "answers what it deleted");
  t.ok(deleted.every((r: { deleted_at: string | null }) => r.deleted_at !== null));
  t.same(await call("GET", base, undefined), []);
  t.same(await call("PATCH", `${base}/bulk_delete`, { ids: [] }), [], "no ids, nothing deleted");
});

t.test("saved reports are premium; a free workspace is answered 402", async (t) => {
  await world.setPlan(false);
  try {
    const res = await sys.api("GET", base, { auth: owner.auth });
    t.same([res.status, res.body], [402, "Available only for premium workspaces."]);
  } finally {
    await world.setPlan(true);
  }
});

// ---------------------------------------------------------------------------------------------
// Runs.

const reportsPath = `/reports/api/v3/workspace/${wid}`;
const totalsOf = async (body: Record<string, unknown>, user: TrackUser = owner) => {
  const { range_start: _s, range_end: _e, ...totals } = await call("POST", `${reportsPath}/search/time_entries/totals`, { ...body, with_graph: true }, user);
  return totals;
};

t.test("a public report runs for anyone holding its token, as the workspace's summary answers the saved parameters", async (t) => {
  const saved = await save({ public: true });
  const res = await run(saved.token);
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), [
    "detailed_results", "dictionaries", "features", "fixed_daterange", "hide_amounts", "input_params", "is_commenting_enabled", "public", "report_name", "report_type", "saved_params", "summary_results", "weekly_results", "workspace_logo",
  ]);
  const expected = await call("POST", `${reportsPath}/summary/time_entries`, { ...WEEK, grouping: "projects", sub_grouping: "users" });
  t.same(res.body.summary_results.report, expected, "the report is the summary's answer");
  t.same(res.body.summary_results.totals, await totalsOf(WEEK), "the totals are the detailed totals' answer, with the graph");
  t.match(res.body, { report_name: "Weekly hours", report_type: "summary", public: true, fixed_daterange: true, hide_amounts: false, input_params: {}, saved_params: summaryParams, features: {}, workspace_logo: null, detailed_results: null, weekly_results: null });
  t.equal(res.headers.get("x-range-start"), "2025-03-10");
  t.equal(res.headers.get("x-range-end"), "2025-03-16");
  t.same(res.body.dictionaries.projects[alpha.id], { id: alpha.id, name: "Alpha", color: alpha.color, client_id: acme.id, currency: alpha.currency });
  t.same(res.body.dictionaries.users[mia.id], { id: mia.id, name: "mia" });
  t.same(Object.keys(res.body.dictionaries.clients), [String(acme.id)], "what the results name: the projects' clients too");
  t.same(res.body.dictionaries.tasks, {});
  await call("DELETE", `${base}/${saved.id}`, undefined);
});

t.test("the body's fields take the saved parameters' place", async (t) => {
  const saved = await save({ public: true });
  const res = await run(saved.token, { start_date: "2025-03-17", end_date: "2025-03-23", project_ids: [beta.id] });
  t.equal(res.status, 200, res.text);
  const expected = await call("POST", `${reportsPath}/summary/time_entries`, { start_date: "2025-03-17", end_date: "2025-03-23", grouping: "projects", sub_grouping: "users", project_ids: [beta.id] });
  t.same(res.body.summary_results.report, expected);
  t.same(res.body.input_params, { start_date: "2025-03-17", end_date: "2025-03-23", project_ids: [beta.id] }, "input_params are the body's fields");
  t.same(res.body.saved_params, summaryParams, "the saved ones are unchanged");
  const bad = await run(saved.token, { start_date: "2025-02-30" });
  t.same([bad.status, bad.body], [400, "Invalid start_date format"], "the report's own checks answer");
  await call("DELETE", `${base}/${saved.id}`, undefined);
});

t.test("detailed and weekly reports run as their workspace endpoints answer", async (t) => {
  const detailed = await save({ public: true, params: { report_type: "detailed", ...WEEK, page_size: 2, enrich_response: true } });
  const page = await run(detailed.token);
  t.equal(page.status, 200, page.text);
  const search = await sys.api("POST", `${reportsPath}/search/time_entries`, { auth: owner.auth, body: { ...WEEK, page_size: 2, enrich_response: true } });
  t.same(page.body.detailed_results.report, search.body);
  t.same(page.body.detailed_results.totals, await totalsOf(WEEK));
  t.equal(page.headers.get("x-next-row-number"), search.headers.get("x-next-row-number"), "the next page is named as the detailed report names it");
  t.equal(page.headers.get("x-next-id"), search.headers.get("x-next-id"));
  const next = await run(detailed.token, { first_id: Number(page.headers.get("x-next-id")), first_timestamp: Number(page.headers.get("x-next-timestamp")), first_row_number: Number(page.headers.get("x-next-row-number")) });
  const searchNext = await call("POST", `${reportsPath}/search/time_entries`, { ...WEEK, page_size: 2, enrich_response: true, first_row_number: 3 });
  t.same(next.body.detailed_results.report, searchNext, "the next page");

  const weekly = await save({ public: true, params: { report_type: "weekly", start_date: "2025-03-10", end_date: "2025-03-16" } });
  const week = await run(weekly.token);
  t.same(week.body.weekly_results.report, await call("POST", `${reportsPath}/weekly/time_entries`, { start_date: "2025-03-10" }));
  t.equal(week.body.summary_results, null);
  const later = await run(weekly.token, { start_date: "2025-03-17" });
  t.equal(later.status, 200, "a weekly report's start moves its saved end along");
  t.same(later.body.weekly_results.report, await call("POST", `${reportsPath}/weekly/time_entries`, { start_date: "2025-03-17" }));
  await call("PATCH", `${base}/bulk_delete`, { ids: [detailed.id, weekly.id] });
});

t.test("a report runs as its owner sees the workspace, whoever holds the token", async (t) => {
  const miaReport = await save({ name: "Mia's view", params: summaryParams }, mia);
  await call("PUT", `${base}/${miaReport.id}`, { name: "Mia's view", params: summaryParams, public: true }, ada);
  const res = await run(miaReport.token);
  t.equal(res.status, 200, res.text);
  t.same(res.body.summary_results.report, await call("POST", `${reportsPath}/summary/time_entries`, { ...WEEK, grouping: "projects", sub_grouping: "users" }, mia), "a member sees their own entries only");
  t.same(res.body.summary_results.totals, await totalsOf(WEEK, mia));
  await call("DELETE", `${base}/${miaReport.id}`, undefined);
});

t.test("a private report: 403 without a caller; its owner and the workspace's admins run it", async (t) => {
  const saved = await save({ name: "Private" });
  const anonymous = await run(saved.token);
  t.same([anonymous.status, anonymous.body], [403, sharedReportTokenInvalid().rawMessage], "no credentials: no caller");
  const rest = (user: TrackUser, path = "") => sys.api("POST", `/reports/api/v3/shared/${saved.token}${path}`, { auth: user.auth });
  t.equal((await rest(owner)).body.report_name ?? (await rest(owner)).status, "Private", "over REST, with its owner's credentials (caller_if_signed_in)");
  t.equal((await rest(ada, "/csv")).status, 200, "an admin's file");
  t.same([(await rest(mia)).status, (await rest(mia)).body], [403, sharedReportTokenInvalid().rawMessage], "a member who is no admin, over REST");
  const wrong = await sys.api("POST", `/reports/api/v3/shared/${saved.token}`, { auth: { basic: [owner.email, "not the password"] } });
  t.equal(wrong.status, 403, "wrong credentials leave the call anonymous");
  const client = sys.directory.client("tracking", SavedReportService);
  const as = (user: TrackUser) => client.runSharedReport({ reportToken: saved.token }, { headers: { "x-user-id": String(user.id) } });
  t.equal((await as(owner)).reportName, "Private", "its owner");
  t.equal((await as(ada)).reportName, "Private", "an admin of the workspace");
  const refusal = (p: Promise<unknown>) => p.then(() => "answered", (err: { rawMessage?: string }) => err.rawMessage);
  t.equal(await refusal(as(mia)), sharedReportTokenInvalid().rawMessage, "a member who is no admin");
  t.equal(await refusal(as(stranger)), sharedReportTokenInvalid().rawMessage, "a stranger");
  const unknown = await run("0123456789abcdef0123456789abcdef");
  t.same([unknown.status, unknown.body], [403, sharedReportTokenInvalid().rawMessage], "an unknown token");
  await call("DELETE", `${base}/${saved.id}`, undefined);
});

t.test("a report whose owner left the workspace does not run", async (t) => {
  const leaver = await world.join("leaver", { admin: true });
  const saved = await save({ public: true }, leaver);
  await world.accounts("workspace_users").where({ workspace_id: wid, user_id: leaver.id }).update({ active: false });
  clock.advance(5_001);
  const res = await run(saved.token);
  t.same([res.status, res.body], [403, sharedReportOwnerGone().rawMessage]);
  const csv = await sys.api("POST", `/reports/api/v3/shared/${saved.token}/csv`);
  t.same([csv.status, csv.body], [403, sharedReportOwnerGone().rawMessage], "nor as a file");
  await call("DELETE", `${base}/${saved.id}`, undefined);
});

t.test("without fixed dates a report spans its period counted from today, in its owner's zone", async (t) => {
  // Thursday 2025-03-20: this week is 17-23 March, the previous 10-16 March.
  const saved = await save({ public: true, fixed_daterange: false, params: { ...summaryParams, period: "prevWeek" } });
  const res = await run(saved.token);
  t.equal(res.headers.get("x-range-start"), "2025-03-10");
  t.equal(res.headers.get("x-range-end"), "2025-03-16");
  const thisWeek = await save({ public: true, fixed_daterange: false, params: summaryParams });
  t.equal((await run(thisWeek.token)).headers.get("x-range-start"), "2025-03-17", "this week when no period is named");
  t.equal((await run(thisWeek.token, { start_date: "2025-03-01", end_date: "2025-03-02" })).headers.get("x-range-start"), "2025-03-01", "a start in the body wins");
  const day = (p: Parameters<typeof periodDays>[0], zone = "UTC", weekStart = 1) => periodDays(p, new Date("2025-03-20T23:30:00Z"), zone, weekStart);
  t.same(day("today"), { startDate: "2025-03-20", endDate: "2025-03-20" });
  t.same(day("today", "Asia/Tokyo"), { startDate: "2025-03-21", endDate: "2025-03-21" }, "already the 21st in Tokyo");
  t.same(day("yesterday"), { startDate: "2025-03-19", endDate: "2025-03-19" });
  t.same(day("thisWeek", "UTC", 0), { startDate: "2025-03-16", endDate: "2025-03-22" }, "weeks from Sunday");
  t.same(day("prevMonth"), { startDate: "2025-02-01", endDate: "2025-02-28" });
  t.same(day("thisMonth"), { startDate: "2025-03-01", endDate: "2025-03-31" });
  t.same(day("prevYear"), { startDate: "2024-01-01", endDate: "2024-12-31" });
  await call("PATCH", `${base}/bulk_delete`, { ids: [saved.id, thisWeek.id] });
});

t.test("a saved report runs as a CSV, an XLSX or a PDF file", async (t) => {
  const saved = await save({ public: true, params: { report_type: "detailed", ...WEEK, page_size: 1 } });
  const csv = await sys.api("POST", `/reports/api/v3/shared/${saved.token}/csv`);
  t.equal(csv.status, 200, csv.text);
  t.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
  t.match(csv.headers.get("content-disposition"), /attachment; filename="detailed_report_2025-03-10_2025-03-16.csv"/);
  const lines = csv.text.trim().split("\n");
  t.equal(lines[0], "User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)");
  t.equal(lines.length, 5, "every row of the range, not a page: four entries");
  t.match(lines[1], /^owner[^,]*,[^,]+,Acme,Alpha,,Build,Yes,2025-03-10,09:00:00,2025-03-10,10:00:00,01:00:00,red,100\.00$/);
  const dotted = await sys.api("POST", `/reports/api/v3/shared/${saved.token}.csv`);
  t.same([dotted.status, dotted.text], [200, csv.text], "the .csv path form some clients use answers the same file");
  const ranged = await sys.api("POST", `/reports/api/v3/shared/${saved.token}/csv`, { body: { start_date: "2025-03-17", end_date: "2025-03-23" } });
  t.equal(ranged.text.trim().split("\n").length, 2, "start_date and end_date of the body take the saved ones' place");
  const xlsx = await sys.api("POST", `/reports/api/v3/shared/${saved.token}/xlsx`);
  t.equal(xlsx.status, 200);
  t.equal(xlsx.headers.get("content-type"), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
  t.ok(xlsx.text.startsWith("PK"), "a ZIP container");
  const pdf = await sys.api("POST", `/reports/api/v3/shared/${saved.token}/pdf`, { body: { display_mode: "date_only" } });
  t.equal(pdf.status, 200);
  t.equal(pdf.headers.get("content-type"), "application/pdf");
  t.ok(pdf.text.startsWith("%PDF"));
  const mode = await sys.api("POST", `/reports/api/v3/shared/${saved.token}/pdf`, { body: { display_mode: "sideways" } });
  t.same([mode.status, mode.body], [400, "Invalid 'display_mode' value, allowed values are: 'date_only', 'time_only', 'date_time'"]);
  const summary = await save({ public: true });
  const table = await sys.api("POST", `/reports/api/v3/shared/${summary.token}/csv`);
  t.equal(table.text.trim().split("\n")[0], "Project,User,Duration,Amount (EUR)", "a summary: its groups and sub-groups");
  t.equal((await sys.api("POST", `/reports/api/v3/shared/nope/csv`)).status, 403);
  await call("PATCH", `${base}/bulk_delete`, { ids: [saved.id, summary.id] });
});
