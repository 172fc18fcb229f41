import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { startSmtp } from "../../../test/support/smtp.js";
import { ManualClock } from "../../../lib/clock.js";
import { connectDatabase, type Knex } from "../../../lib/db.js";
import type { TrackingService } from "../index.js";
import { accountsDb, addMember, ownOrganization } from "../../accounts/test/organization-support.js";
import { lastEndedPeriod } from "../reminders/rules.js";
import { frequencyInvalid, frequencyMissing, invalidValue, recipientsMissing, reminderNotFound, thresholdMissing } from "../errors.js";

/**
 * Track reminders: CRUD by workspace admins with every validation, and the scheduler that mails
 * members who tracked less than the threshold in the reminder's ended period (through a real
 * SMTP server on loopback), each reminder, user and period once.
 */

const HOUR = 3600_000;
// A Wednesday, 10:00 UTC.
const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const smtp = await startSmtp(t);
const sys: TestSystem = await startTestSystem(t, { clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
const accounts = await accountsDb(t, sys);
const tracking: Knex = await connectDatabase(sys.config, "tracking");
t.teardown(() => tracking.destroy());
const scheduler = (sys.services.get("tracking") as TrackingService).reminders;

const owner: TrackUser = await sys.signup("owner");
const organizationId = await ownOrganization(sys, owner);
const wid = owner.workspaceId;
const member = await sys.signup("member");
const grouped = await sys.signup("grouped");
const inactive = await sys.signup("inactive");
const wsAdmin = await sys.signup("wsadmin");
for (const u of [member, grouped, wsAdmin]) await addMember(accounts, organizationId, u, { workspaces: [wid] });
await addMember(accounts, organizationId, inactive, { workspaces: [wid], inactive: true });
await accounts("workspace_users").where({ workspace_id: wid, user_id: wsAdmin.id }).update({ admin: true, role: "admin" });
const stranger = await sys.signup("stranger");
const newYorker = await sys.signup("newyorker");
await addMember(accounts, organizationId, newYorker, { workspaces: [wid] });
await accounts("users").where({ id: newYorker.id }).update({ timezone: "America/New_York" });

const group = await sys.api("POST", `/api/v9/organizations/${organizationId}/groups`, { auth: owner.auth, body: { name: "Night shift", users: [grouped.id], workspaces: [wid] } });
if (group.status !== 200) throw new Error(`group: ${group.text}`);
const groupId: number = group.body.group_id;
const unassigned = await sys.api("POST", `/api/v9/organizations/${organizationId}/groups`, { auth: owner.auth, body: { name: "Nowhere", users: [member.id] } });
const unassignedGroupId: number = unassigned.body.group_id;

const base = `/api/v9/workspaces/${wid}/track_reminders`;
const create = (body: unknown, user: TrackUser = owner) => sys.api("POST", base, { auth: user.auth, body });
const count = async () => Number((await tracking("track_reminders").count({ n: "*" }))[0].n);

t.test("create answers the reminder field for field; list, update and delete", async (t) => {
  const res = await create({ frequency: 1, threshold: 6, user_ids: [member.id, member.id], group_ids: [groupId] });
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ["created_at", "frequency", "group_ids", "reminder_id", "threshold", "user_ids", "workspace_id"]);
  t.match(res.body, { reminder_id: Number, workspace_id: wid, frequency: 1, threshold: 6, user_ids: [member.id], group_ids: [groupId] });
  t.equal(res.body.created_at, "2026-03-04T10:00:00+00:00");
  const id = res.body.reminder_id;

  const list = await sys.api("GET", base, { auth: owner.auth });
  t.equal(list.status, 200);
  t.same(list.body, [res.body]);

  const put = await sys.api("PUT", `${base}/${id}`, { auth: wsAdmin.auth, body: { frequency: 7, threshold: 40, group_ids: [groupId] } });
  t.equal(put.status, 200, put.text);
  t.same(put.body, { ...res.body, frequency: 7, threshold: 40, user_ids: [] }, "PUT replaces the settings");

  const del = await sys.api("DELETE", `${base}/${id}`, { auth: owner.auth });
  t.equal(del.status, 200);
  t.equal(del.text, "");
  t.same((await sys.api("GET", base, { auth: owner.auth })).body, []);
  const again = await sys.api("DELETE", `${base}/${id}`, { auth: owner.auth });
  t.equal(again.status, 404);
  t.equal(again.body, reminderNotFound().rawMessage);
  const putGone = await sys.api("PUT", `${base}/${id}`, { auth: owner.auth, body: { frequency: 1, threshold: 1, user_ids: [member.id] } });
  t.equal(putGone.status, 404);
});

t.test("bad settings are refused with a 400 and change nothing", async (t) => {
  const before = await count();
  for (const [body, message] of [
    [{ threshold: 2, user_ids: [member.id] }, frequencyMissing().rawMessage],
    [{ frequency: 2, threshold: 2, user_ids: [member.id] }, frequencyInvalid().rawMessage],
    [{ frequency: 1, user_ids: [member.id] }, thresholdMissing().rawMessage],
    [{ frequency: 1, threshold: 0, user_ids: [member.id] }, "threshold should be a whole number of hours from 1 to 24"],
    [{ frequency: 1, threshold: 25, user_ids: [member.id] }, "threshold should be a whole number of hours from 1 to 24"],
    [{ frequency: 7, threshold: 169, user_ids: [member.id] }, "threshold should be a whole number of hours from 1 to 168"],
    [{ frequency: 1, threshold: 1.5, user_ids: [member.id] }, "threshold should be a whole number of hours from 1 to 24"],
    [{ frequency: 1, threshold: 2 }, recipientsMissing().rawMessage],
    [{ frequency: 1, threshold: 2, user_ids: [], group_ids: [] }, recipientsMissing().rawMessage],
    [{ frequency: 1, threshold: 2, user_ids: [stranger.id] }, `Invalid user_ids: ${stranger.id} not in the workspace`],
    [{ frequency: 1, threshold: 2, user_ids: [0] }, invalidValue("user_ids").rawMessage],
    [{ frequency: 1, threshold: 2, group_ids: [unassignedGroupId] }, `Invalid group_ids: ${unassignedGroupId} not in the workspace`],
    [{ frequency: 1, threshold: 2, group_ids: [groupId + 1000] }, `Invalid group_ids: ${groupId + 1000} not in the workspace`],
  ] as const) {
    const res = await create(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message, JSON.stringify(body));
  }
  const typed = await create({ frequency: "daily", threshold: 2, user_ids: [member.id] });
  t.equal(typed.status, 400);
  const malformed = await sys.api("POST", base, { auth: owner.auth, rawBody: "{not json", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400);
  t.equal(await count(), before);

  const made = await create({ frequency: 1, threshold: 2, user_ids: [member.id] });
  const badPut = await sys.api("PUT", `${base}/${made.body.reminder_id}`, { auth: owner.auth, body: { frequency: 3, threshold: 2, user_ids: [member.id] } });
  t.equal(badPut.status, 400);
  t.same((await sys.api("GET", base, { auth: owner.auth })).body.find((r: { reminder_id: number }) => r.reminder_id === made.body.reminder_id), made.body, "unchanged");
  await sys.api("DELETE", `${base}/${made.body.reminder_id}`, { auth: owner.auth });
});

t.test("only workspace admins manage reminders; other workspaces' reminders are out of reach", async (t) => {
  const made = await create({ frequency: 1, threshold: 2, user_ids: [member.id] });
  const path = `${base}/${made.body.reminder_id}`;
  const body = { frequency: 1, threshold: 3, user_ids: [member.id] };
  for (const [who, user] of [["plain member", member], ["stranger", stranger]] as const) {
    for (const [method, p, b] of [["GET", base], ["POST", base, body], ["PUT", path, body], ["DELETE", path]] as const) {
      const res = await sys.api(method, p, { auth: user.auth, body: b });
      t.equal(res.status, 403, `${who} ${method}`);
    }
  }
  const denied = await sys.api("GET", base, { auth: member.auth });
  t.equal(denied.body, "User does not have access to this resource.");
  const noAuth = await sys.api("GET", base);
  t.equal(noAuth.status, 403);
  // The stranger is admin of their own workspace: the reminder is not found there.
  const elsewhere = `/api/v9/workspaces/${stranger.workspaceId}/track_reminders/${made.body.reminder_id}`;
  t.equal((await sys.api("PUT", elsewhere, { auth: stranger.auth, body: { frequency: 1, threshold: 1, user_ids: [stranger.id] } })).status, 404);
  t.equal((await sys.api("DELETE", elsewhere, { auth: stranger.auth })).status, 404);
  t.same((await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/track_reminders`, { auth: stranger.auth })).body, []);
  t.equal((await sys.api("GET", path, { auth: owner.auth })).status, 404, "no GET of one reminder");
  await sys.api("DELETE", path, { auth: owner.auth });
});

async function track(user: TrackUser, start: string, stop: string | null, extra: Record<string, unknown> = {}) {
  const s = new Date(start);
  await tracking("time_entries").insert({
    workspace_id: wid,
    user_id: user.id,
    billable: false,
    start: s,
    stop: stop ? new Date(stop) : null,
    duration: stop ? (new Date(stop).getTime() - s.getTime()) / 1000 : -Math.floor(s.getTime() / 1000),
    running_user_id: stop ? null : user.id,
    tag_ids: "[]",
    shared_with_user_ids: "[]",
    created_with: "test",
    created_at: s,
    at: s,
    ...extra,
  });
}

const mailsTo = (user: TrackUser) => smtp.received.filter((d) => d.recipients.includes(user.email));
const checks = async (reminderId: number) =>
  (await tracking("track_reminder_checks").where({ reminder_id: reminderId }).orderBy("user_id").select("user_id", "tracked_seconds", "mailed")).map((r) => ({
    user_id: Number(r.user_id),
    tracked_seconds: Number(r.tracked_seconds),
    mailed: Boolean(r.mailed),
  }));

t.test("the scheduler mails members who tracked less than the threshold in the ended period, once", async (t) => {
  clock.set(new Date("2026-03-04T10:00:00Z"));
  const daily = await create({ frequency: 1, threshold: 2, user_ids: [member.id, inactive.id, owner.id], group_ids: [groupId] });
  t.equal(daily.status, 200, daily.text);
  const id = daily.body.reminder_id;
  // Wednesday: the member tracks 2 h 30 (one entry starts Tuesday evening and counts from midnight on).
  await track(member, "2026-03-03T23:00:00Z", "2026-03-04T01:00:00Z");
  await track(member, "2026-03-04T12:00:00Z", "2026-03-04T13:30:00Z");
  // The grouped member: 1 h, a deleted entry does not count.
  await track(grouped, "2026-03-04T08:00:00Z", "2026-03-04T09:00:00Z");
  await track(grouped, "2026-03-04T13:00:00Z", "2026-03-04T18:00:00Z", { server_deleted_at: new Date("2026-03-04T19:00:00Z") });
  // The owner's entry runs since 22:30: it counts up to the end of the day.
  await track(owner, "2026-03-04T22:30:00Z", null);

  await scheduler.tick();
  t.same(await checks(id), [], "nothing before the day ended");

  clock.set(new Date("2026-03-05T00:05:00Z"));
  await scheduler.tick();
  t.same(await checks(id), [
    { user_id: owner.id, tracked_seconds: 1.5 * 3600, mailed: true },
    { user_id: member.id, tracked_seconds: 2.5 * 3600, mailed: false },
    { user_id: grouped.id, tracked_seconds: 3600, mailed: true },
  ].sort((a, b) => a.user_id - b.user_id), "the inactive member is left out");
  await smtp.until(2);
  t.equal(mailsTo(grouped).length, 1);
  t.equal(mailsTo(owner).length, 1);
  t.equal(mailsTo(member).length, 0);
  t.equal(mailsTo(inactive).length, 0);
  const mail = mailsTo(grouped)[0].mail;
  t.equal(mail.subject, "Reminder: you tracked 1 h 00 min yesterday");
  t.match(mail.text ?? "", /2026-03-04, UTC/);
  t.match(mail.text ?? "", /less than the 2 hours/);

  clock.advance(HOUR);
  await scheduler.tick();
  t.equal((await checks(id)).length, 3, "a period is settled once");
  clock.set(new Date("2026-03-06T00:01:00Z"));
  await scheduler.tick();
  await smtp.until(4);
  t.equal(mailsTo(grouped).length, 2, "the next day is a new period");
  t.equal(mailsTo(member).length, 1, "nothing tracked on Thursday");
  t.equal(mailsTo(owner).length, 1, "the running entry fills Thursday");
  t.equal(smtp.received.length, 4);
  await sys.api("DELETE", `${base}/${id}`, { auth: owner.auth });
  t.equal((await checks(id)).length, 0, "a deleted reminder's checks go with it");
});

t.test("a weekly reminder looks at last week, Monday to Monday (UTC)", async (t) => {
  clock.set(new Date("2026-03-06T12:00:00Z"));
  const weekly = await create({ frequency: 7, threshold: 3, user_ids: [member.id] });
  const id = weekly.body.reminder_id;
  const sent = smtp.received.length;
  // Week of Monday 2026-03-02: the entries of the daily test (3 h 30, Tuesday 23:00 on) plus
  // one on Sunday night, half of it in the next week.
  await track(member, "2026-03-08T23:00:00Z", "2026-03-09T01:00:00Z");
  await scheduler.tick();
  t.same(await checks(id), [], "the week has not ended");
  clock.set(new Date("2026-03-09T06:00:00Z"));
  await scheduler.tick();
  t.same(await checks(id), [{ user_id: member.id, tracked_seconds: 4.5 * 3600, mailed: false }], "4 h 30 tracked: no mail");
  await sys.api("PUT", `${base}/${id}`, { auth: owner.auth, body: { frequency: 7, threshold: 5, user_ids: [member.id] } });
  await scheduler.tick();
  t.equal((await checks(id)).length, 1, "a changed reminder does not settle the same period again");
  clock.set(new Date("2026-03-16T00:00:00Z"));
  await scheduler.tick();
  await smtp.until(sent + 1);
  t.match(mailsTo(member).at(-1)?.mail.subject, "Reminder: you tracked 1 h 00 min last week");
  t.match(mailsTo(member).at(-1)?.mail.text, /2026-03-09 to 2026-03-15, UTC/);
});

t.test("periods are the member's days and weeks in its own time zone", async (t) => {
  const iso = (p: { start: Date; end: Date; firstDay: string; lastDay: string }) => ({ start: p.start.toISOString(), end: p.end.toISOString(), firstDay: p.firstDay, lastDay: p.lastDay });
  t.same(iso(lastEndedPeriod(1, new Date("2026-03-05T00:00:00Z"))), { start: "2026-03-04T00:00:00.000Z", end: "2026-03-05T00:00:00.000Z", firstDay: "2026-03-04", lastDay: "2026-03-04" });
  t.same(iso(lastEndedPeriod(1, new Date("2026-03-09T12:00:00Z"), "America/New_York")), { start: "2026-03-08T05:00:00.000Z", end: "2026-03-09T04:00:00.000Z", firstDay: "2026-03-08", lastDay: "2026-03-08" }, "a day of 23 hours (DST starts)");
  t.same(iso(lastEndedPeriod(7, new Date("2026-03-08T16:00:00Z"), "Asia/Tokyo")), { start: "2026-03-01T15:00:00.000Z", end: "2026-03-08T15:00:00.000Z", firstDay: "2026-03-02", lastDay: "2026-03-08" }, "Monday 00:00 in Tokyo");
  t.same(iso(lastEndedPeriod(7, new Date("2026-03-09T00:00:00Z"))), { start: "2026-03-02T00:00:00.000Z", end: "2026-03-09T00:00:00.000Z", firstDay: "2026-03-02", lastDay: "2026-03-08" }, "a Monday's midnight ends the week");
  t.same(iso(lastEndedPeriod(1, new Date("2026-03-05T10:00:00Z"), "Nowhere/Special")), iso(lastEndedPeriod(1, new Date("2026-03-05T10:00:00Z"))), "an unknown zone is UTC");
  t.same(iso(lastEndedPeriod(7, new Date("2026-03-09T00:00:00Z"), "UTC", 0)), { start: "2026-03-01T00:00:00.000Z", end: "2026-03-08T00:00:00.000Z", firstDay: "2026-03-01", lastDay: "2026-03-07" }, "weeks from Sunday");
  t.same(iso(lastEndedPeriod(7, new Date("2026-03-07T00:00:00Z"), "UTC", 6)), { start: "2026-02-28T00:00:00.000Z", end: "2026-03-07T00:00:00.000Z", firstDay: "2026-02-28", lastDay: "2026-03-06" }, "weeks from Saturday: its midnight ends one");
  t.same(iso(lastEndedPeriod(7, new Date("2026-03-09T00:00:00Z"), "UTC", 9)), iso(lastEndedPeriod(7, new Date("2026-03-09T00:00:00Z"))), "a day that is none: Monday");
});


t.test("a member in New York is reminded of its own day, once it has ended there", async (t) => {
  clock.set(new Date("2026-03-18T12:00:00Z"));
  const made = await create({ frequency: 1, threshold: 3, user_ids: [newYorker.id] });
  const id = made.body.reminder_id;
  const sent = smtp.received.length;
  // 18 March in New York (UTC-4) runs from 04:00 UTC to 04:00 UTC the next day: 2 h of this entry are in it.
  await track(newYorker, "2026-03-19T02:00:00Z", "2026-03-19T06:00:00Z");
  clock.set(new Date("2026-03-19T00:30:00Z"));
  await scheduler.tick();
  t.same(await checks(id), [], "the day has ended in UTC, not in New York");
  clock.set(new Date("2026-03-19T04:30:00Z"));
  await scheduler.tick();
  t.same(await checks(id), [{ user_id: newYorker.id, tracked_seconds: 2 * 3600, mailed: true }]);
  await smtp.until(sent + 1);
  const mail = mailsTo(newYorker).at(-1)!.mail;
  t.equal(mail.subject, "Reminder: you tracked 2 h 00 min yesterday");
  t.match(mail.text ?? "", /\(2026-03-18, America\/New_York\)/);
});

t.test("a weekly reminder follows the member's own first day of the week", async (t) => {
  const sundayStarter = await sys.signup("sundaystarter");
  await addMember(accounts, organizationId, sundayStarter, { workspaces: [wid] });
  const me = await sys.api("PUT", "/api/v9/me", { auth: sundayStarter.auth, body: { beginning_of_week: 0 } });
  t.equal(me.status, 200, me.text);
  clock.set(new Date("2026-04-08T12:00:00Z"));
  const made = await create({ frequency: 7, threshold: 2, user_ids: [sundayStarter.id, member.id] });
  const id = made.body.reminder_id;
  const sent = smtp.received.length;
  await track(sundayStarter, "2026-04-11T10:00:00Z", "2026-04-11T11:00:00Z");
  clock.set(new Date("2026-04-12T00:05:00Z"));
  await scheduler.tick();
  t.same(await checks(id), [{ user_id: sundayStarter.id, tracked_seconds: 3600, mailed: true }], "Sunday's midnight ends the Sunday starter's week, not the member's");
  await smtp.until(sent + 1);
  for (let i = 0; i < 100 && mailsTo(sundayStarter).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  t.match(mailsTo(sundayStarter).at(-1)?.mail.text, /2026-04-05 to 2026-04-11, UTC/);
  clock.set(new Date("2026-04-13T00:05:00Z"));
  await scheduler.tick();
  t.same((await checks(id)).map((c) => c.user_id).sort((a, b) => a - b), [sundayStarter.id, member.id].sort((a, b) => a - b), "Monday's midnight ends the member's");
  await sys.api("DELETE", `${base}/${id}`, { auth: owner.auth });
});
