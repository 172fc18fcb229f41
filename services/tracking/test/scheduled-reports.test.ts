import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { startSmtp } from "../../../test/support/smtp.js";
import { ManualClock } from "../../../lib/clock.js";
import { lastEndedPeriod } from "../reminders/rules.js";
import type { TrackingService } from "../index.js";
import { ScheduledReportScheduler } from "../scheduled-reports/scheduler.js";
import { SecretBox } from "../../../lib/secret-box.js";
import { createLogger } from "../../../lib/logger.js";
import { trackingWorld } from "./tracking-support.js";
import { bookmarkNotFound, noUsableRecipients, recipientsUnusable, scheduledReportNotFound, scheduleFrequencyInvalid } from "../errors.js";

/**
 * Scheduled reports (GET/POST /api/v9/workspaces/{id}/scheduled_reports, DELETE .../{report_id}):
 * workspace admins schedule a saved report for members and groups; the scheduler mails it for
 * each ended day, week or month in each recipient's zone (through a real SMTP server on loopback),
 * with the link and the PDF, one period once, whichever replica runs.
 */

const HOUR = 3600_000;
// A Wednesday, 10:00 UTC.
const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const smtp = await startSmtp(t);
const sys = await startTestSystem(t, { clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, PUBLIC_URL: "https://track.example.com" } });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking, call } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
const member = await world.join("member");
const grouped = await world.join("grouped");
const newYorker = await world.join("newyorker");
await world.accounts("users").where({ id: newYorker.id }).update({ timezone: "America/New_York" });
const stranger = await sys.signup("stranger");
const scheduler = (sys.services.get("tracking") as TrackingService).scheduledReports;

const group = await call("POST", `/api/v9/organizations/${world.organizationId}/groups`, { name: "Night shift", users: [grouped.id], workspaces: [wid] });
const elsewhere = await call("POST", `/api/v9/organizations/${world.organizationId}/groups`, { name: "Nowhere", users: [member.id] });
const alpha = await world.project("Alpha");

const base = `/api/v9/workspaces/${wid}/scheduled_reports`;
const saved = await call("POST", `/api/v9/workspaces/${wid}/reports/shared`, {
  name: "Team hours",
  public: false,
  fixed_daterange: true,
  params: { report_type: "summary", start_date: "2026-01-01", grouping: "projects", sub_grouping: "users" },
});
const create = (body: unknown, user: TrackUser = owner) => sys.api("POST", base, { auth: user.auth, body });

async function track(user: TrackUser, start: string, stop: string, projectId: bigint | null = alpha.id) {
  const s = new Date(start);
  await tracking("time_entries").insert({
    workspace_id: wid, user_id: user.id, project_id: projectId, billable: false, start: s, stop: new Date(stop), duration: (new Date(stop).getTime() - s.getTime()) / 1000,
    running_user_id: null, tag_ids: "[]", shared_with_user_ids: "[]", created_with: "test", created_at: s, at: s, description: "Work",
  });
}

const mailsTo = (user: TrackUser) => smtp.received.filter((d) => d.recipients.includes(user.email));
/** Resolves once `user` has received `n` mails (the SMTP server gets them in the mailer's order, not the test's). */
async function arrived(user: TrackUser, n: number) {
  for (let i = 0; i < 200 && mailsTo(user).length < n; i++) await new Promise((r) => setTimeout(r, 50));
  if (mailsTo(user).length < n) throw new Error(`${user.email}: ${mailsTo(user).length} of ${n} mails`);
  return mailsTo(user)[n - 1].mail;
}
const sends = async (scheduleId: number) =>
  (await tracking("scheduled_report_sends").where({ scheduled_report_id: scheduleId }).orderBy("user_id").select("user_id", "period_start")).map((r) => ({
    user_id: Number(r.user_id),
    period_start: new Date(r.period_start).toISOString(),
  }));

t.test("create answers the schedule field for field; list and delete", async (t) => {
  const res = await create({ bookmark_id: saved.id, frequency: 7, user_ids: [member.id, member.id], group_ids: [group.group_id] });
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ["bookmark_id", "created_at", "creator_id", "deleted_at", "frequency", "group_ids", "report_id", "user_ids", "workspace_id"]);
  t.match(res.body, { bookmark_id: saved.id, creator_id: owner.id, frequency: 7, user_ids: [member.id], group_ids: [group.group_id], workspace_id: wid, deleted_at: null });
  t.same(await call("GET", base, undefined), [res.body]);
  const report = await call("GET", `/api/v9/workspaces/${wid}/reports/shared/${saved.id}`, undefined);
  t.same([report.scheduled_email_uids, report.scheduled_email_gids], [[member.id], [group.group_id]]);
  const del = await sys.api("DELETE", `${base}/${res.body.report_id}`, { auth: owner.auth });
  t.same([del.status, del.text], [200, ""]);
  const again = await sys.api("DELETE", `${base}/${res.body.report_id}`, { auth: owner.auth });
  t.same([again.status, again.body], [404, scheduledReportNotFound().rawMessage]);
  t.same(await call("GET", base, undefined), []);
});

t.test("bad bodies are refused with the reference's texts and save nothing", async (t) => {
  const other = await call("POST", `/api/v9/workspaces/${stranger.workspaceId}/scheduled_reports`.replace("scheduled_reports", "reports/shared"), undefined, stranger).catch(() => undefined);
  t.notOk(other, "the stranger's workspace is free: no saved report there");
  for (const [body, message] of [
    [{ bookmark_id: saved.id, user_ids: [member.id] }, scheduleFrequencyInvalid().rawMessage],
    [{ bookmark_id: saved.id, frequency: 14, user_ids: [member.id] }, scheduleFrequencyInvalid().rawMessage],
    [{ frequency: 1, user_ids: [member.id] }, bookmarkNotFound().rawMessage],
    [{ bookmark_id: saved.id + 1000, frequency: 1, user_ids: [member.id] }, bookmarkNotFound().rawMessage],
    [{ bookmark_id: 0, frequency: 1, user_ids: [member.id] }, bookmarkNotFound().rawMessage],
    [{ bookmark_id: saved.id, frequency: 1 }, noUsableRecipients().rawMessage],
    [{ bookmark_id: saved.id, frequency: 1, user_ids: [stranger.id], group_ids: [elsewhere.group_id] }, noUsableRecipients().rawMessage],
    [{ bookmark_id: saved.id, frequency: 1, user_ids: [member.id, stranger.id] }, recipientsUnusable().rawMessage],
    [{ bookmark_id: saved.id, frequency: 1, user_ids: [member.id], group_ids: [elsewhere.group_id] }, recipientsUnusable().rawMessage],
  ] as const) {
    const res = await create(body);
    t.same([res.status, res.body], [400, message], JSON.stringify(body));
  }
  t.same(await call("GET", base, undefined), []);
});

t.test("a daily schedule mails yesterday's report once it has ended, with the link and the PDF, once per period", async (t) => {
  clock.set(new Date("2026-03-04T10:00:00Z"));
  const made = await call("POST", base, { bookmark_id: saved.id, frequency: 1, user_ids: [member.id, owner.id], group_ids: [group.group_id] });
  const id = made.report_id;
  await track(member, "2026-03-04T09:00:00Z", "2026-03-04T11:00:00Z");
  await track(grouped, "2026-03-04T13:00:00Z", "2026-03-04T13:30:00Z", null);
  await track(member, "2026-03-05T09:00:00Z", "2026-03-05T10:00:00Z");

  await scheduler.tick();
  t.same(await sends(id), [], "nothing before the day ended");
  clock.set(new Date("2026-03-05T00:05:00Z"));
  await scheduler.tick();
  t.same((await sends(id)).map((s) => s.user_id), [owner.id, member.id, grouped.id].sort((a, b) => a - b), "each recipient's period is recorded");
  await smtp.until(3);
  const mail = mailsTo(member)[0].mail;
  t.equal(mail.subject, "Team hours: summary report, 2026-03-04");
  t.match(mail.text, /Total: 2 h 30 min/, "the owner's view: everyone's time that day");
  t.match(mail.text, /Alpha: 2 h 00 min/);
  t.match(mail.text, /\(none\): 0 h 30 min/);
  t.notMatch(mail.text, /3 h/, "not the next day's entry");
  t.match(mail.text, new RegExp(`https://track\\.example\\.com/reports/api/v3/shared/[0-9a-f]{32}`));
  t.equal(mail.attachments.length, 1);
  t.equal(mail.attachments[0].filename, "summary_report_2026-03-04_2026-03-04.pdf");
  t.equal(mail.attachments[0].contentType, "application/pdf");
  t.ok(mail.attachments[0].content.subarray(0, 4).toString() === "%PDF");

  clock.advance(HOUR);
  await scheduler.tick();
  t.equal(smtp.received.length, 3, "a period is mailed once");
  clock.set(new Date("2026-03-06T00:01:00Z"));
  await scheduler.tick();
  await smtp.until(6);
  t.equal(mailsTo(member).length, 2, "the next day is a new period");
  t.match(mailsTo(member)[1].mail.text, /Total: 1 h 00 min/);
  await call("DELETE", `${base}/${id}`, undefined);
  t.same(await sends(id), [], "a deleted schedule's record goes with it");
});

t.test("two replicas never mail a period twice", async (t) => {
  clock.set(new Date("2026-03-10T12:00:00Z"));
  const made = await call("POST", base, { bookmark_id: saved.id, frequency: 1, user_ids: [member.id] });
  const before = smtp.received.length;
  const { memberScope } = (scheduler as unknown as { deps: ConstructorParameters<typeof ScheduledReportScheduler>[2] }).deps;
  const deps = { clock, log: createLogger("silent"), box: new SecretBox(sys.config.encryptionKey), publicUrl: "https://track.example.com", memberScope };
  const storage = (scheduler as unknown as { storage: ConstructorParameters<typeof ScheduledReportScheduler>[0] }).storage;
  const identityClient = (scheduler as unknown as { identity: ConstructorParameters<typeof ScheduledReportScheduler>[1] }).identity;
  // A second replica whose lease expires at once: it may run whenever the first does not hold it.
  const replica = new ScheduledReportScheduler(storage, identityClient, deps, { leaseMs: 1 });
  t.teardown(() => replica.stop());
  clock.set(new Date("2026-03-11T00:10:00Z"));
  await Promise.all([scheduler.tick(), replica.tick(), replica.tick()]);
  await scheduler.tick();
  await smtp.until(before + 1);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(smtp.received.length, before + 1, "one mail for the member's day");
  t.same((await sends(made.report_id)).length, 1);
  const outbox = await tracking("mail_outbox").where("created_at", ">=", new Date("2026-03-11T00:00:00Z")).count({ n: "*" });
  t.equal(Number(outbox[0].n), 1, "one mail in the outbox");
  await call("DELETE", `${base}/${made.report_id}`, undefined);
});

t.test("weekly and monthly schedules: last week from the recipient's first day, last calendar month, in the recipient's zone", async (t) => {
  clock.set(new Date("2026-03-12T12:00:00Z"));
  const weekly = await call("POST", base, { bookmark_id: saved.id, frequency: 7, user_ids: [newYorker.id] });
  const monthly = await call("POST", base, { bookmark_id: saved.id, frequency: 30, user_ids: [member.id] });
  const [nyBefore, memberBefore] = [mailsTo(newYorker).length, mailsTo(member).length];
  // Monday 16 March, 02:00 UTC: the week has ended in UTC, not yet in New York (22:00 on Sunday).
  clock.set(new Date("2026-03-16T02:00:00Z"));
  await scheduler.tick();
  t.same(await sends(weekly.report_id), [], "not before the week ends in New York");
  clock.set(new Date("2026-03-16T04:30:00Z"));
  await scheduler.tick();
  t.same(await sends(weekly.report_id), [{ user_id: newYorker.id, period_start: "2026-03-09T04:00:00.000Z" }], "Monday 00:00 in New York (EDT)");
  t.equal((await arrived(newYorker, nyBefore + 1)).subject, "Team hours: summary report, 2026-03-09 to 2026-03-15");
  t.same(await sends(monthly.report_id), [], "the month has not ended");
  clock.set(new Date("2026-04-01T00:00:00Z"));
  await scheduler.tick();
  const march = await arrived(member, memberBefore + 1);
  t.equal(march.subject, "Team hours: summary report, 2026-03-01 to 2026-03-31");
  t.match(march.text, /Total: 3 h 30 min/, "March's entries");
  const iso = (p: { start: Date; end: Date; firstDay: string; lastDay: string }) => [p.start.toISOString(), p.end.toISOString(), p.firstDay, p.lastDay];
  t.same(iso(lastEndedPeriod(30, new Date("2026-03-01T03:00:00Z"), "Asia/Tokyo")), ["2026-01-31T15:00:00.000Z", "2026-02-28T15:00:00.000Z", "2026-02-01", "2026-02-28"], "a month in Tokyo");
  t.same(iso(lastEndedPeriod(30, new Date("2026-01-15T00:00:00Z"))), ["2025-12-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", "2025-12-01", "2025-12-31"], "across a year");
  await call("DELETE", `${base}/${weekly.report_id}`, undefined);
  await call("DELETE", `${base}/${monthly.report_id}`, undefined);
});

t.test("a weekly saved report mails the seven days that end with the period", async (t) => {
  const weeklyReport = await call("POST", `/api/v9/workspaces/${wid}/reports/shared`, { name: "Week grid", public: true, fixed_daterange: true, params: { report_type: "weekly", start_date: "2026-01-05" } });
  clock.set(new Date("2026-03-04T12:00:00Z"));
  const daily = await call("POST", base, { bookmark_id: weeklyReport.id, frequency: 1, user_ids: [owner.id] });
  const before = mailsTo(owner).length;
  clock.set(new Date("2026-03-05T00:30:00Z"));
  await scheduler.tick();
  const mail = await arrived(owner, before + 1);
  t.equal(mail.subject, "Week grid: weekly report, 2026-03-04");
  t.equal(mail.attachments[0].filename, "weekly_report_2026-02-26_2026-03-04.pdf");
  await call("DELETE", `${base}/${daily.report_id}`, undefined);
  await call("DELETE", `/api/v9/workspaces/${wid}/reports/shared/${weeklyReport.id}`, undefined);
});

t.test("only workspace admins manage schedules; a free workspace is answered 402", async (t) => {
  const res = await create({ bookmark_id: saved.id, frequency: 1, user_ids: [member.id] }, member);
  t.same([res.status, res.body], [403, "User does not have access to this resource."]);
  t.same([(await sys.api("GET", base, { auth: stranger.auth })).status], [404]);
  // Past every answer the workspace gate remembers (earlier tests moved the clock back and forth).
  clock.set(new Date("2027-01-01T00:00:00Z"));
  await world.setPlan(false);
  try {
    const free = await sys.api("GET", base, { auth: owner.auth });
    t.same([free.status, free.body], [402, "Workspace needs to have the scheduled_reports feature enabled."]);
  } finally {
    await world.setPlan(true);
  }
});
