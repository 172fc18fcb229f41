import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { trackingWorld } from "./tracking-support.js";
import {
  timesheetApproverIsMember, timesheetApproverNotAdmin, timesheetCommentNotRejection, timesheetDenied, timesheetEndDatePeriodicity, timesheetInvalidDate,
  timesheetInvalidPeriodicity, timesheetInvalidStatus, timesheetInvalidTransition, timesheetInvalidUserId, timesheetMemberHasSetup, timesheetSetupIdInvalid,
  timesheetSetupInUse, timesheetSetupNotFound, timesheetUserNotInWorkspace, timesheetBodyInvalid,
} from "../errors.js";
import { begunPeriods, checkEndDate, workingMinutes } from "../timesheets/rules.js";

// A Wednesday.
const clock = new ManualClock(new Date("2025-03-19T12:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const other = await world.join("other");
const stranger = await sys.signup("stranger");
const ws = owner.workspaceId;
await world.setPlan(true);
const setups = `/api/v9/workspaces/${ws}/timesheet_setups`;
const sheets = `/api/v9/workspaces/${ws}/timesheets`;

async function expectError(res: { status: number; body: unknown }, status: number, message: string, what = "") {
  t.equal(res.status, status, what);
  t.equal(res.body, message, what);
}

// Weekly from Monday 2025-03-03: three periods have begun by the 19th.
const created = await sys.api("POST", setups, { auth: owner.auth, body: { member_ids: [member.id], approver_id: owner.id, periodicity: "weekly", start_date: "2025-03-03", reminder_day: "Friday", reminder_time: "17:00" } });
const setup = created.body[0];

t.test("a setup answers the reference's fields", async (t) => {
  t.equal(created.status, 200, JSON.stringify(created.body));
  t.match(setup, {
    id: Number, workspace_id: ws, member_id: member.id, member_name: "member", approver_id: owner.id, approver_name: "owner", approvers: [{ user_id: owner.id, name: "owner" }],
    periodicity: "weekly", reminder_day: "friday", reminder_time: "17:00", start_date: "2025-03-03", end_date: null, errors: [],
  });
  const list = await sys.api("GET", setups, { auth: owner.auth });
  t.same(list.body, { data: [setup] });
  t.same((await sys.api("GET", setups, { auth: member.auth })).body.data.map((s: { id: number }) => s.id), [setup.id], "the member sees their setup");
  t.same((await sys.api("GET", setups, { auth: other.auth })).body.data, [], "others see none");
  t.same((await sys.api("GET", `${setups}?member_ids=${other.id}`, { auth: owner.auth })).body.data, []);
});

t.test("bad setups are refused with the reference's messages", async (t) => {
  const ok = { member_ids: [other.id], approver_ids: [owner.id], periodicity: "weekly", start_date: "2025-03-03" };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...ok, member_ids: [] }, timesheetInvalidUserId().rawMessage],
    [{ ...ok, approver_ids: [] }, timesheetInvalidUserId().rawMessage],
    [{ ...ok, member_ids: [stranger.id] }, timesheetUserNotInWorkspace().rawMessage],
    [{ ...ok, approver_ids: [member.id] }, timesheetApproverNotAdmin().rawMessage],
    [{ ...ok, member_ids: [other.id, owner.id] }, timesheetApproverIsMember().rawMessage],
    [{ ...ok, periodicity: "daily" }, timesheetInvalidPeriodicity().rawMessage],
    [{ ...ok, start_date: "2025-13-01" }, timesheetInvalidDate().rawMessage],
    [{ ...ok, periodicity: "monthly", start_date: "2025-03-30" }, timesheetInvalidDate().rawMessage],
    [{ ...ok, member_ids: [member.id] }, timesheetMemberHasSetup().rawMessage],
  ];
  for (const [body, message] of cases) await expectError(await sys.api("POST", setups, { auth: owner.auth, body }), 400, message, JSON.stringify(body));
  await expectError(await sys.api("POST", setups, { auth: member.auth, body: ok }), 403, "User does not have access to this resource", "members may not");
  t.equal((await sys.api("GET", setups, { auth: owner.auth })).body.data.length, 1, "nothing was made");
});

t.test("the timesheets of the begun periods, pending until submitted", async (t) => {
  const res = await sys.api("GET", sheets, { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { page: 1, per_page: 20, total_count: 3 });
  t.same(res.body.data.map((s: { start_date: string; period_end: string; status: string }) => [s.start_date, s.period_end, s.status]), [
    ["2025-03-03", "2025-03-09", "pending"], ["2025-03-10", "2025-03-16", "pending"], ["2025-03-17", "2025-03-23", "pending"],
  ]);
  t.match(res.body.data[0], { timesheet_setup_id: setup.id, member_id: member.id, approver_id: owner.id, working_hours_in_minutes: 2400, period_editable: true, submitted_at: null });
  t.equal((await sys.api("GET", `${sheets}?statuses=approved`, { auth: owner.auth })).body.total_count, 0);
  t.equal((await sys.api("GET", `${sheets}?after=2025-03-05&before=2025-03-17`, { auth: owner.auth })).body.total_count, 1);
  await expectError(await sys.api("GET", `${sheets}?statuses=done`, { auth: owner.auth }), 400, timesheetInvalidStatus().rawMessage);
  await expectError(await sys.api("GET", `${sheets}?before=yesterday`, { auth: owner.auth }), 400, timesheetInvalidDate().rawMessage);
});

t.test("states: the member submits, the approver rejects with a comment, the member resubmits, the approver approves", async (t) => {
  const path = `${sheets}/${setup.id}/2025-03-03`;
  await expectError(await sys.api("PUT", path, { auth: owner.auth, body: { status: "approved" } }), 400, timesheetInvalidTransition().rawMessage, "a pending one is not approved");
  const submitted = await sys.api("PUT", path, { auth: member.auth, body: { status: "submitted" } });
  t.equal(submitted.status, 200, submitted.text);
  t.match(submitted.body, { status: "submitted", period_locked: true, period_editable: false });
  t.match(submitted.body.submitted_at, /^2025-03-19T/);
  await expectError(await sys.api("PUT", path, { auth: member.auth, body: { status: "approved" } }), 400, timesheetInvalidTransition().rawMessage, "members do not approve");
  await expectError(await sys.api("PUT", path, { auth: owner.auth, body: { status: "approved", rejection_comment: "x" } }), 400, timesheetCommentNotRejection().rawMessage);
  const rejected = await sys.api("PUT", path, { auth: owner.auth, body: { status: "rejected", rejection_comment: "Missing Friday" } });
  t.match(rejected.body, { status: "rejected", rejection_comment: "Missing Friday", approved_or_rejected_id: owner.id, approved_or_rejected_name: "owner", reviews: [{ user_id: owner.id, approved: false }] });
  t.equal((await sys.api("PUT", path, { auth: member.auth, body: { status: "submitted" } })).status, 200);
  const approved = await sys.api("PUT", path, { auth: owner.auth, body: { status: "approved" } });
  t.match(approved.body, { status: "approved", rejection_comment: null, reviews: [{ approved: true }] });
  await expectError(await sys.api("PUT", path, { auth: other.auth, body: { status: "submitted" } }), 403, timesheetDenied().rawMessage);
  await expectError(await sys.api("PUT", `${sheets}/${setup.id}/2025-03-04`, { auth: member.auth, body: { status: "submitted" } }), 400, timesheetInvalidDate().rawMessage, "no period starts then");
  await expectError(await sys.api("PUT", `${sheets}/${setup.id}/2025-03-24`, { auth: member.auth, body: { status: "submitted" } }), 400, timesheetInvalidDate().rawMessage, "a future period");
  await expectError(await sys.api("PUT", path, { auth: owner.auth, body: { status: "done" } }), 400, timesheetInvalidStatus().rawMessage);
  const mine = (await sys.api("GET", "/api/v9/me/timesheets", { auth: member.auth })).body;
  t.match(mine[0], { timesheet_id: Number, timesheet_setup_id: setup.id, workspace_id: ws, start_date: "2025-03-03", status: "approved", working_hours_in_minutes: 2400 });
  t.equal(mine.length, 3);
  t.same((await sys.api("GET", "/api/v9/me/timesheets", { auth: other.auth })).body, []);
});

t.test("a batch PUT changes all its timesheets or none", async (t) => {
  const bad = await sys.api("PUT", sheets, { auth: member.auth, body: [
    { timesheet_setup_id: setup.id, start_date: "2025-03-10", status: "submitted" },
    { timesheet_setup_id: setup.id, start_date: "2025-03-17", status: "approved" },
  ] });
  await expectError(bad, 400, timesheetInvalidTransition().rawMessage);
  t.equal((await sys.api("GET", `${sheets}?statuses=submitted`, { auth: owner.auth })).body.total_count, 0, "nothing changed");
  const res = await sys.api("PUT", sheets, { auth: member.auth, body: [
    { timesheet_setup_id: setup.id, start_date: "2025-03-10", status: "submitted" },
    { timesheet_setup_id: setup.id, start_date: "2025-03-17", status: "submitted" },
  ] });
  t.equal(res.status, 200, res.text);
  t.same(res.body.map((s: { status: string }) => s.status), ["submitted", "submitted"]);
  await expectError(await sys.api("PUT", sheets, { auth: member.auth, body: [{ start_date: "2025-03-10", status: "pending" }] }), 400, "Invalid ID");
  await expectError(await sys.api("PUT", sheets, { auth: member.auth, body: [{ timesheet_setup_id: setup.id, start_date: 20250310 }] }), 400, "Invalid date");
  await expectError(await sys.api("PUT", sheets, { auth: member.auth, body: { timesheet_setup_id: setup.id } }), 400, timesheetBodyInvalid(200).rawMessage);
});

t.test("hours and time entries of a period", async (t) => {
  for (const start of ["2025-03-11T09:00:00Z", "2025-03-12T09:00:00Z", "2025-03-18T09:00:00Z"]) {
    const res = await sys.api("POST", `/api/v9/workspaces/${ws}/time_entries`, { auth: member.auth, body: { created_with: "tests", workspace_id: ws, start, duration: 3600 } });
    t.equal(res.status, 200, res.text);
  }
  const hours = await sys.api("POST", `${sheets}/hours`, { auth: owner.auth, body: [{ timesheet_setup_id: setup.id, start_date: "2025-03-10" }] });
  t.equal(hours.status, 200, hours.text);
  t.same(hours.body, [{ timesheet_setup_id: setup.id, start_date: "2025-03-10", total_seconds: 7200, working_hours_in_minutes: 2400 }]);
  const entries = await sys.api("GET", `${sheets}/${setup.id}/2025-03-10/time_entries`, { auth: owner.auth });
  t.equal(entries.status, 200, entries.text);
  t.same(entries.body.map((e: { start: string }) => e.start.slice(0, 10)), ["2025-03-11", "2025-03-12"]);
  await expectError(await sys.api("GET", `${sheets}/${setup.id}/2025-03-11/time_entries`, { auth: owner.auth }), 400, timesheetInvalidDate().rawMessage);
  await expectError(await sys.api("GET", `${sheets}/${setup.id}/2025-03-10/time_entries`, { auth: other.auth }), 403, timesheetDenied().rawMessage);
});

t.test("update: approvers, reminders, an end that closes a period; 404 for none", async (t) => {
  const path = `${setups}/${setup.id}`;
  await expectError(await sys.api("POST", path, { auth: owner.auth, body: { end_date: "2025-03-20" } }), 400, timesheetEndDatePeriodicity().rawMessage);
  const res = await sys.api("POST", path, { auth: owner.auth, body: { end_date: "2025-03-23", reminder_day: "monday" } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { end_date: "2025-03-23", reminder_day: "monday", reminder_time: "17:00" });
  await expectError(await sys.api("POST", `${setups}/987654`, { auth: owner.auth, body: { end_date: "" } }), 404, timesheetSetupNotFound().rawMessage);
  await expectError(await sys.api("POST", path, { auth: owner.auth, body: { approver_ids: [member.id] } }), 400, timesheetApproverNotAdmin().rawMessage);
});

t.test("delete: 400 while the member has submitted or reviewed timesheets, else 200", async (t) => {
  await expectError(await sys.api("DELETE", `${setups}/${setup.id}`, { auth: owner.auth }), 400, timesheetSetupInUse().rawMessage);
  const fresh = (await sys.api("POST", setups, { auth: owner.auth, body: { member_ids: [other.id], approver_ids: [owner.id], periodicity: "monthly", start_date: "2025-03-01" } })).body[0];
  t.equal((await sys.api("DELETE", `${setups}/${fresh.id}`, { auth: owner.auth })).status, 200);
  await expectError(await sys.api("DELETE", `${setups}/${fresh.id}`, { auth: owner.auth }), 400, timesheetSetupIdInvalid().rawMessage);
});

t.test("period rules", async (t) => {
  const monthly = { periodicity: "monthly", start_date: "2025-01-15", end_date: null };
  t.same(begunPeriods(monthly, "2025-03-01"), [{ start: "2025-01-15", end: "2025-02-14" }, { start: "2025-02-15", end: "2025-03-14" }]);
  t.throws(() => checkEndDate(monthly, "2025-02-15"));
  t.doesNotThrow(() => checkEndDate(monthly, "2025-03-14"));
  t.equal(workingMinutes({ start: "2025-03-01", end: "2025-03-09" }), 5 * 480);
});

t.test("a free workspace's approvals are a premium feature (402)", async (t) => {
  const res = await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/timesheets`, { auth: stranger.auth });
  await expectError(res, 402, "Approvals are a premium feature");
});
